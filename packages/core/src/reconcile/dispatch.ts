import type { FleetEvent } from '../events/fleet-event.ts';
import { heldBack, type NodeHold } from '../recovery/hold.ts';
import { behindNode, blockBehindNode, type NodeAhead } from './ahead.ts';
import { intentStream, type AttemptQueuedData } from './events.ts';
import { operationFor, type IntentState, type Operation } from './intent.ts';
import { dispatchesConfiguration, dispatchesLifecycle, type Mode } from './mode.ts';
import { blockPlacement, checkPlacement, placementShare, type PlacementPeer } from './placement.ts';
import type { Placement, StreamSpec } from './stream.ts';

export interface DispatchNode {
  nodeId: string;
  registered: boolean;
  maintenance: 'active' | 'draining';
  mode: Mode;
  /** A claim that may have moved the node's configuration: automated work waits (SPEC I12). */
  hold: NodeHold | null;
  /** Set while the node reports a configuration version the log does not know (ahead.ts). */
  configAhead: NodeAhead | null;
  /** The time the Hub's database was found restored, while the node has not reported since: nothing is sent (unheard.ts). */
  unheardSince: Date | null;
}

export interface DispatchCandidate extends IntentState {
  /** A stream's spec; for a configuration intent, the version's content, format and digest. */
  spec: StreamSpec;
  /** Null for a configuration intent. */
  placement: Placement | null;
  hasActiveAttempt: boolean;
  /** The last action the node reported for the stream: a restart it shows was carried out is not sent again. */
  observedActionId: string | null;
  /** For a split placement: the live intents of the same generation on its other nodes. */
  siblings: Array<Pick<IntentState, 'intentId' | 'state' | 'desiredState'>>;
  /** The id the attempt queued for it now takes, if one is: made before the decision. */
  newAttemptId: string;
}

/**
 * A restart the node has already reported carrying out (its action id is the stream's last action) is a
 * one-shot action that took effect: what the stream still needs is a start (SPEC C6).
 */
function operationToSend(intent: DispatchCandidate): Operation {
  const operation = operationFor(intent);
  return operation === 'job_restart' && intent.observedActionId === intent.actionId ? 'job_start' : operation;
}

/** Whether the node's mode lets the Hub act on this kind of intent (SPEC B2). */
export function modeDispatches(mode: Mode, kind: IntentState['kind']): boolean {
  return kind === 'configuration' ? dispatchesConfiguration(mode) : dispatchesLifecycle(mode);
}

/**
 * Reconciles one node: queues an attempt for every intent that wants one now. Nothing is queued in
 * `observe` mode (B1), configuration only in `configuration` mode (B2), nothing for a draining node (D1)
 * or a node that never registered; ambiguous intents wait
 * for a newer report (C4), blocked ones for a new generation (C2). A split placement that cannot run
 * blocks every intent of its generation that wants the stream running before anything is queued on any
 * node (E1, E2); stops are never held by it (D3). On a held node only an operator's explicit action is
 * queued, and its attempt records that it went through the hold (I12, I13). A configuration intent opened
 * before its node reported a version the log does not know is blocked instead, nothing sent (ahead.ts). Nothing
 * is queued for a node not heard from since the Hub's database was restored: its intents wait for its report (unheard.ts).
 */
export function decideDispatch(
  node: DispatchNode,
  candidates: readonly DispatchCandidate[],
  peers: ReadonlyMap<string, PlacementPeer | null>,
  now: Date,
): FleetEvent[] {
  if (!node.registered || node.maintenance !== 'active' || node.unheardSince !== null) return [];
  const events: FleetEvent[] = [];
  for (const intent of candidates) {
    const due = intent.state === 'pending' || (intent.state === 'retrying' && (intent.nextRetryAt?.getTime() ?? 0) <= now.getTime());
    if (!due || intent.hasActiveAttempt || !modeDispatches(node.mode, intent.kind) || heldBack({ overridesHold: intent.overridesHold, operation: operationFor(intent) }, node.hold)) continue;
    if (behindNode(intent, node.configAhead)) {
      events.push(blockBehindNode(node.nodeId, intent.intentId, operationFor(intent), intent.configVersion));
      continue;
    }
    // Only a stream that is to run needs its split placement; stopping it, or it on a node it left, does not.
    const placement = intent.placement && intent.desiredState !== 'stopped' ? checkPlacement(intent.placement, peers) : ({ ok: true } as const);
    if (!placement.ok) {
      if ('code' in placement) {
        const runningSiblings = intent.siblings.filter((s) => s.state !== 'blocked' && s.desiredState !== 'stopped');
        events.push(...blockPlacement([intent.intentId, ...runningSiblings.map((s) => s.intentId)], placement));
      }
      continue;
    }
    const data: AttemptQueuedData = {
      attempt_id: intent.newAttemptId,
      intent_id: intent.intentId,
      node_id: node.nodeId,
      stream_id: intent.streamId,
      generation: intent.generation,
      operation: operationToSend(intent),
      action_id: intent.actionId,
      config_version: intent.configVersion,
      spec: intent.spec,
      ...(node.hold && { override_hold: true as const }),
    };
    // SPEC E3: a node running its share of a split learns its index, the count and its peers' data addresses.
    const share = intent.placement && intent.desiredState === 'running' ? placementShare(intent.placement, node.nodeId, peers) : null;
    if (share) data.placement = share;
    events.push({ streamId: intentStream(intent.intentId), type: 'AttemptQueued', data });
  }
  return events;
}
