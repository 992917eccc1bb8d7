import type { NewEvent } from '../events/envelope.ts';
import type { AttemptState } from './attempt.ts';
import { modeDispatches, type DispatchNode } from './dispatch.ts';
import { intentStream, type AttemptAmbiguousData, type AttemptDispatchedData, type IntentReopenedData } from './events.ts';
import { isNewerReport, kindOf, type IntentStateName, type ReportMark } from './intent.ts';

/**
 * Hands queued attempts to their node (the pull channel's long poll, or a push transport) with a lease.
 * Recorded as dispatched before anything leaves the Hub: a result lost after this point makes the attempt
 * ambiguous, never a candidate for a second delivery.
 */
export function decideLease(
  node: DispatchNode,
  nodeReport: ReportMark | null,
  queued: readonly AttemptState[],
  now: Date,
  leaseMs: number,
): NewEvent[] {
  if (!node.registered || node.maintenance !== 'active') return [];
  const leaseExpiresAt = new Date(now.getTime() + leaseMs).toISOString();
  return queued.filter((a) => modeDispatches(node.mode, kindOf(a.operation))).map((a) => {
    const data: AttemptDispatchedData = {
      attempt_id: a.attemptId,
      intent_id: a.intentId,
      node_id: a.nodeId,
      lease_expires_at: leaseExpiresAt,
      node_report: nodeReport,
    };
    return { streamId: intentStream(a.intentId), type: 'AttemptDispatched', data: { ...data } };
  });
}

export interface ExpiredAttempt extends AttemptState {
  intentState: IntentStateName;
  /** The node's last accepted report now. */
  nodeReport: ReportMark | null;
  /** The node's last accepted report when the attempt was dispatched; undefined when not recorded. */
  dispatchReport: ReportMark | null | undefined;
}

/**
 * SPEC C4: a dispatched attempt whose lease ran out became ambiguous: the command may or may not have run.
 * The Hub does not send it again on its own. Its intent gets another attempt only after a newer full report
 * (C5): one with a greater (boot_id, report_seq) than the node's last report at dispatch, which is therefore
 * received after the attempt was dispatched. Such a report that proved the attempt's effect would have
 * converged the intent already; one that came and did not reopens the intent at once. Otherwise the intent
 * waits for one. (An attempt dispatched before the mark was kept waits for a report newer than now.)
 */
export function decideLeaseExpiry(expired: readonly ExpiredAttempt[], now: Date): NewEvent[] {
  return expired
    .filter((a) => a.state === 'dispatched' && a.leaseExpiresAt !== null && a.leaseExpiresAt.getTime() <= now.getTime())
    .flatMap((a) => {
      const intentWaits = a.intentState === 'converging';
      const awaiting = a.dispatchReport === undefined ? a.nodeReport : a.dispatchReport;
      const data: AttemptAmbiguousData = {
        attempt_id: a.attemptId,
        intent_id: a.intentId,
        reason: 'lease_expired',
        awaiting: intentWaits ? awaiting : null,
        intent_waits: intentWaits,
      };
      const events: NewEvent[] = [{ streamId: intentStream(a.intentId), type: 'AttemptAmbiguous', data: { ...data } }];
      if (intentWaits && a.nodeReport !== null && isNewerReport(a.nodeReport, awaiting)) {
        const reopened: IntentReopenedData = { intent_id: a.intentId, report: a.nodeReport };
        events.push({ streamId: intentStream(a.intentId), type: 'IntentReopened', data: { ...reopened } });
      }
      return events;
    });
}
