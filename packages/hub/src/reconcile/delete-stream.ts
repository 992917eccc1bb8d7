import { decideDeleteStream, ok, writeNodes } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from '../ids.ts';
import { backstopJob, streamRemovalJob } from './queues.ts';
import { loadStream, type LoadedStream } from './write-desired.ts';

/**
 * DELETE /streams/{id} (issue 22): the stream wanted stopped on every node (a new generation, as a desired
 * write), its deletion requested, and the removal check, which removes it once every registered node reported
 * the stop. Its route reconciles the nodes at once; a backstop pass per node covers a Hub that stopped before
 * (backstopJob), as a desired write's does. A second DELETE while it stops records nothing.
 */
export function deleteStream(streamId: string, ifMatch: number | null): Command<LoadedStream, { generation: number; nodes: string[] }> {
  return {
    name: 'DeleteStream',
    load: (trx) => loadStream(trx, streamId),
    decide({ stream, deletion, live, registered, reported }, now) {
      const intentIds = new Map(writeNodes(stream, live, { streamId, desired: null, actionId: null, ifMatch, overrideHold: false }).map((n) => [n, newId('in')]));
      const decided = decideDeleteStream(stream, deletion, live, registered, { streamId, ifMatch }, intentIds, reported);
      if (!decided.ok) return decided;
      const { events, generation, nodes } = decided.value;
      return ok({
        events,
        jobs: events.length ? [...nodes.map((n) => backstopJob(n, now)), streamRemovalJob(streamId)] : [],
        result: { generation, nodes },
      });
    },
  };
}
