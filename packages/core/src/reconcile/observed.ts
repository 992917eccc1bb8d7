import { z } from 'zod';
import { StreamHealth } from './health.ts';
import type { IntentState } from './intent.ts';

/** At most this many characters of an agent's free text: a stream's error in a report, a result's message. */
export const MAX_AGENT_TEXT = 4096;

export const ObservedStream = z
  .object({
    stream_id: z.string().min(1).max(200),
    generation: z.number().int().min(0),
    state: z.string().min(1).max(64),
    last_action_id: z.string().max(200).nullable().default(null),
    error: z.string().max(MAX_AGENT_TEXT).nullable().default(null),
    /** Absent when the agent reports no health (older agents, a stream meant to be stopped). */
    health: StreamHealth.optional(),
  })
  .strict();
export type ObservedStream = z.infer<typeof ObservedStream>;

/**
 * A stream the Hub removed that a node still reports, with the generation it was removed at: a long poll's
 * `removed_streams`, which the node may forget.
 */
export const RemovedStream = z.object({ stream_id: z.string(), generation: z.number().int() });
export type RemovedStream = z.infer<typeof RemovedStream>;

/**
 * SPEC A9: converged only when the node reports the intent's generation, its desired state, and for a
 * restart the restart's action id (a restart is proven by the action reported, then the stream running).
 */
export function proves(observed: ObservedStream | undefined, intent: Pick<IntentState, 'generation' | 'desiredState' | 'actionId'>): boolean {
  if (!observed || observed.generation !== intent.generation || observed.state !== intent.desiredState) return false;
  return intent.actionId === null || observed.last_action_id === intent.actionId;
}
