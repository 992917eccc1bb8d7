import type { NewEvent } from '../events/envelope.ts';
import type { LiveIntent } from '../reconcile/desired.ts';
import { intentStream, type IntentOpenedData, type IntentSupersededData } from '../reconcile/events.ts';

/** A node whose configuration is about to get a new target: its generation now and its live configuration intents. */
export interface ConfigTarget {
  nodeId: string;
  configGeneration: number;
  live: readonly LiveIntent[];
}

export interface OpenedConfigIntent {
  nodeId: string;
  intentId: string;
  generation: number;
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
  newId: (prefix: string) => string,
): { events: NewEvent[]; opened: OpenedConfigIntent[] } {
  const events: NewEvent[] = [];
  const opened: OpenedConfigIntent[] = [];
  for (const target of targets) {
    const intentId = newId('in');
    const generation = target.configGeneration + 1;
    opened.push({ nodeId: target.nodeId, intentId, generation });
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
    };
    events.push({ streamId: intentStream(intentId), type: 'IntentOpened', data: { ...data } });
    for (const old of target.live) events.push(supersede(old, intentId));
  }
  return { events, opened };
}

export function supersede(old: LiveIntent, by: string | null): NewEvent {
  const data: IntentSupersededData = { intent_id: old.intentId, superseded_by: by, withdrawn_attempts: old.queuedAttempts };
  return { streamId: intentStream(old.intentId), type: 'IntentSuperseded', data: { ...data } };
}
