import type { FleetEvent } from '../events/fleet-event.ts';
import type { LiveIntent } from '../reconcile/desired.ts';
import { batchBehindNode, blockBehindNode } from '../reconcile/ahead.ts';
import { decideDispatch, type DispatchCandidate, type DispatchNode } from '../reconcile/dispatch.ts';
import type { StreamSpec } from '../reconcile/stream.ts';
import { intentStream, type IntentOpenedData, type IntentSupersededData } from '../reconcile/events.ts';

/** A node whose configuration is about to get a new target: its generation now and its live configuration intents. */
export interface ConfigTarget {
  nodeId: string;
  configGeneration: number;
  live: readonly LiveIntent[];
  /** The ids a configuration intent opened on the node now takes, and its first attempt: made before the decision. */
  newIntentId: string;
  newAttemptId: string;
}

export interface OpenedConfigIntent {
  nodeId: string;
  intentId: string;
  generation: number;
  /** The id of its first attempt, when one is queued in the same decision. */
  newAttemptId: string;
  /** Opened by an operator's explicit action on the node: it goes through a recovery hold (SPEC I13). */
  overridesHold: boolean;
}

/**
 * A new desired configuration for each node: one configuration intent at the node's next configuration
 * generation. Its older live configuration intents are superseded with their queued attempts (SPEC A5), so
 * a rollback is a new intent and generation, never an edit of the failed one (G6).
 */
export function openConfigIntents(
  targets: readonly ConfigTarget[],
  configVersion: string,
  rolloutId: string,
  overrideHold: boolean,
): { events: FleetEvent[]; opened: OpenedConfigIntent[] } {
  const each = targets.map((t) => openConfigIntent(t, configVersion, null, rolloutId, overrideHold));
  return { events: each.flatMap((e) => e.events), opened: each.map((e) => e.opened) };
}

/**
 * One node's new configuration intent: an apply, or with a recovery ref a restore of that point. With
 * `overrideHold` it is recorded as going through a recovery hold on the node (SPEC I13).
 */
export function openConfigIntent(
  target: ConfigTarget,
  configVersion: string,
  recoveryRef: string | null,
  rolloutId: string,
  overrideHold: boolean,
): { events: FleetEvent[]; opened: OpenedConfigIntent } {
  const intentId = target.newIntentId;
  const generation = target.configGeneration + 1;
  const data: IntentOpenedData = {
    intent_id: intentId,
    kind: 'configuration',
    stream_id: null,
    node_id: target.nodeId,
    generation,
    desired_state: null,
    action_id: null,
    config_version: configVersion,
    rollout_id: rolloutId,
    recovery_ref: recoveryRef,
    ...(overrideHold && { override_hold: true as const }),
  };
  return {
    events: [{ streamId: intentStream(intentId), type: 'IntentOpened', data }, ...target.live.map((old) => supersede(old, intentId))],
    opened: { nodeId: target.nodeId, intentId, generation, newAttemptId: target.newAttemptId, overridesHold: overrideHold },
  };
}

export function supersede(old: LiveIntent, by: string | null): FleetEvent {
  const data: IntentSupersededData = { intent_id: old.intentId, superseded_by: by, withdrawn_attempts: old.queuedAttempts };
  return { streamId: intentStream(old.intentId), type: 'IntentSuperseded', data };
}

/**
 * Queues the attempts of configuration intents in the decision that opened them, for the nodes that may
 * take them now: exactly what the nodes' next reconcile pass would queue (the same rule decides), without
 * a pass per node. A rollout batch of hundreds of nodes then waits on no job queue. An intent on a node that
 * reported a configuration version the log does not know since the rollout was created is blocked instead (ahead.ts);
 * one on a node not heard from since the Hub's database was restored stays pending until its report (unheard.ts).
 */
export function queueOpened(
  opened: readonly OpenedConfigIntent[],
  configVersion: string,
  rolloutId: string,
  rolloutCreatedAt: Date,
  spec: StreamSpec,
  nodes: ReadonlyMap<string, DispatchNode>,
  now: Date,
): FleetEvent[] {
  return opened.flatMap((o) => {
    const node = nodes.get(o.nodeId);
    if (!node) return [];
    const intent = { intentId: o.intentId, kind: 'configuration' as const, desiredState: null, actionId: null, recoveryRef: null, configVersion };
    if (batchBehindNode(rolloutCreatedAt, node.configAhead)) return [blockBehindNode(o.nodeId, o.intentId, 'config_apply', configVersion)];
    const candidate: DispatchCandidate = {
      ...intent,
      streamId: null,
      nodeId: o.nodeId,
      generation: o.generation,
      rolloutId,
      state: 'pending',
      retryCount: 0,
      nextRetryAt: null,
      awaiting: null,
      openedAt: now,
      overridesHold: o.overridesHold,
      spec,
      placement: null,
      hasActiveAttempt: false,
      observedActionId: null,
      siblings: [],
      newAttemptId: o.newAttemptId,
    };
    return decideDispatch(node, [candidate], new Map(), now);
  });
}
