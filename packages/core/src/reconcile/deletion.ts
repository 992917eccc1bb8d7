import { supersede } from '../config/intents.ts';
import { fleetEvent, type FleetEvent } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { decideDesiredWrite, type DesiredWrite, type DesiredWriteDecision, type LiveIntent } from './desired.ts';
import { streamStream } from './events.ts';
import type { StreamState } from './stream.ts';

/** Where a stream is in its deletion: none, stopping everywhere (deleting), or gone from the listings (removed). */
export type StreamDeletion = 'none' | 'deleting' | 'removed';

/**
 * A stream being deleted takes no desired write or action (409 `stream_deleting`): its stop must finish. A
 * removed one is created again by a PUT, at its next generation (intents are unique per generation), and has
 * nothing to act on.
 */
export function refuseDuringDeletion(deletion: StreamDeletion, write: DesiredWrite): Result<void> {
  if (deletion === 'deleting') {
    return fail('stream_deleting', `stream ${write.streamId} is being deleted: it takes no write until it is removed`, { stream_id: write.streamId });
  }
  if (deletion === 'removed' && write.desired === null) return fail('stream_not_found', `stream ${write.streamId} does not exist`, { stream_id: write.streamId });
  return ok(undefined);
}

/**
 * DELETE /streams/{id} (issue 22): a new generation that wants the stream stopped on every node of its
 * placement and its live intents (the desired write's own rules, A2, A5), and the request to remove it. A
 * second DELETE while it stops records nothing; a removed stream is not found.
 */
export function decideDeleteStream(
  current: StreamState | null,
  deletion: StreamDeletion,
  live: readonly LiveIntent[],
  registered: ReadonlySet<string>,
  request: { streamId: string; ifMatch: number | null },
  intentIds: ReadonlyMap<string, string>,
  reported: number,
): Result<DesiredWriteDecision> {
  if (current === null || deletion === 'removed') return fail('stream_not_found', `stream ${request.streamId} does not exist`, { stream_id: request.streamId });
  if (request.ifMatch !== null && request.ifMatch !== current.generation) {
    return fail('generation_conflict', `stream ${request.streamId} is at generation ${current.generation}, not ${request.ifMatch}`, {
      stream_id: request.streamId,
      generation: current.generation,
    });
  }
  if (deletion === 'deleting') return ok({ events: [], generation: current.generation, nodes: [] });
  const stop: DesiredWrite = {
    streamId: request.streamId,
    desired: { desired_state: 'stopped', spec: current.spec, placement: current.placement },
    actionId: null,
    ifMatch: null,
    overrideHold: false,
  };
  const written = decideDesiredWrite(current, live, registered, stop, intentIds, reported);
  if (!written.ok) return written;
  const { generation } = written.value;
  const requested = fleetEvent(streamStream(request.streamId), 'StreamDeletionRequested', { stream_id: request.streamId, generation });
  return ok({ ...written.value, events: [...written.value.events, requested] });
}

/**
 * The removal check, level-triggered and safe to run twice: a deleting stream is removed once no registered
 * node has a live intent of it left, that is every registered node reported it stopped at the deletion's
 * generation (or was retired). Intents left on nodes that are not registered (never were, or retired) wait
 * for nothing that will come: they are superseded with the removal.
 */
export function decideRemoveStream(
  stream: { streamId: string; generation: number } | null,
  deletion: StreamDeletion,
  live: readonly LiveIntent[],
  registered: ReadonlySet<string>,
): FleetEvent[] {
  if (stream === null || deletion !== 'deleting') return [];
  if (live.some((i) => registered.has(i.nodeId))) return [];
  return [fleetEvent(streamStream(stream.streamId), 'StreamRemoved', { stream_id: stream.streamId, generation: stream.generation }), ...live.map((i) => supersede(i, null))];
}
