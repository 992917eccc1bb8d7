import { decideRemoveStream, ok } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { loadStream, type LoadedStream } from './write-desired.ts';

/** The `stream-removal` job (issue 22): removes a deleted stream once no registered node has a live intent of it left. */
export function removeStream(streamId: string): Command<LoadedStream, { removed: boolean }> {
  return {
    name: 'RemoveStream',
    load: (trx) => loadStream(trx, streamId),
    decide({ stream, deletion, live, registered }) {
      const events = decideRemoveStream(stream, deletion, live, registered);
      return ok({ events, result: { removed: events.length > 0 } });
    },
  };
}
