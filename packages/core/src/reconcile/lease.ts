import type { FleetEvent } from '../events/fleet-event.ts';
import { heldBack } from '../recovery/hold.ts';
import { behindNode, blockBehindNode } from './ahead.ts';
import type { AttemptState } from './attempt.ts';
import { modeDispatches, type DispatchNode } from './dispatch.ts';
import { intentStream, type AttemptAmbiguousData, type AttemptDispatchedData } from './events.ts';
import { kindOf, type IntentStateName, type ReportMark } from './intent.ts';

/**
 * Hands queued attempts to their node (the pull channel's long poll, or a push transport) with a lease.
 * Recorded as dispatched before anything leaves the Hub: a result lost after this point makes the attempt
 * ambiguous, never a candidate for a second delivery. An attempt queued before its node was held waits
 * with the rest of the node's automated work (SPEC I12). Nothing goes to a node not heard from since the Hub's
 * database was restored (unheard.ts): an attempt the backup held queued waits for its report. One of a
 * configuration intent decided before its node reported a version the log does not know is not delivered: its
 * intent is blocked and the attempt withdrawn with it, as the pass would have blocked it (ahead.ts).
 */
export function decideLease(node: DispatchNode, queued: ReadonlyArray<AttemptState & { overridesHold: boolean }>, now: Date, leaseMs: number): FleetEvent[] {
  if (!node.registered || node.maintenance !== 'active' || node.unheardSince !== null) return [];
  const leaseExpiresAt = new Date(now.getTime() + leaseMs).toISOString();
  return queued
    .filter((a) => modeDispatches(node.mode, kindOf(a.operation)) && !heldBack(a, node.hold))
    .map((a) => {
      if (behindNode({ kind: kindOf(a.operation), generation: a.generation }, node.configAhead)) return blockBehindNode(node.nodeId, a.intentId, a.operation, a.configVersion);
      const data: AttemptDispatchedData = { attempt_id: a.attemptId, intent_id: a.intentId, node_id: a.nodeId, lease_expires_at: leaseExpiresAt };
      return { streamId: intentStream(a.intentId), type: 'AttemptDispatched', data };
    });
}

export interface ExpiredAttempt extends AttemptState {
  intentState: IntentStateName;
  /** The node's last accepted report now: the intent will wait for a newer one. */
  nodeReport: ReportMark | null;
}

/**
 * SPEC C4: a dispatched attempt whose lease ran out became ambiguous: the command may or may not have run.
 * The Hub does not send it again; its intent waits for a report newer than the node's last one (C5).
 * Stricter than "a report received after dispatch": a report sent while the agent may still have been
 * executing proves nothing, so only one received after the expiry counts.
 */
export function decideLeaseExpiry(expired: readonly ExpiredAttempt[], now: Date): FleetEvent[] {
  return expired
    .filter((a) => a.state === 'dispatched' && a.leaseExpiresAt !== null && a.leaseExpiresAt.getTime() <= now.getTime())
    .map((a) => {
      const intentWaits = a.intentState === 'converging';
      const data: AttemptAmbiguousData = {
        attempt_id: a.attemptId,
        intent_id: a.intentId,
        reason: 'lease_expired',
        awaiting: intentWaits ? a.nodeReport : null,
        intent_waits: intentWaits,
      };
      return { streamId: intentStream(a.intentId), type: 'AttemptAmbiguous', data };
    });
}
