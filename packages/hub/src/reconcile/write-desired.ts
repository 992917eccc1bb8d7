import { decideDesiredWrite, ok, streamStream, type DesiredWrite, type LiveIntent, type StreamState } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { newId } from './ids.ts';
import { lockLiveIntents, toIntent, toStream } from './load.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  stream: StreamState | null;
  live: LiveIntent[];
  /** Which of the nodes the stream was placed on, or has live intents on, ever registered (nodes are never removed). */
  registered: Set<string>;
}

/**
 * PUT /streams/{id} and stream actions: a new generation, its intents, and a reconcile job per node. The
 * result names those nodes, so the caller can reconcile them at once (Reconciler.reconcileNow).
 */
export function writeDesired(write: DesiredWrite): Command<Loaded, { generation: number; nodes: string[] }> {
  return {
    name: 'WriteDesired',
    async load(trx) {
      const row = await trx.selectFrom('streams').selectAll().where('stream_id', '=', write.streamId).forUpdate().executeTakeFirst();
      const intents = await lockLiveIntents(trx).where('stream_id', '=', write.streamId).execute();
      const queued = await trx
        .selectFrom('attempts')
        .select(['attempt_id', 'intent_id'])
        .where('stream_id', '=', write.streamId)
        .where('state', '=', 'queued')
        .execute();
      const stream = row ? toStream(row) : null;
      const known = [...new Set([...(stream?.placement.nodes ?? []), ...intents.map((i) => i.node_id)])];
      const registered = known.length ? await trx.selectFrom('nodes').select('node_id').where('node_id', 'in', known).execute() : [];
      return {
        stream,
        registered: new Set(registered.map((n) => n.node_id)),
        live: intents.map((r) => ({
          ...toIntent(r),
          queuedAttempts: queued.filter((a) => a.intent_id === r.intent_id).map((a) => a.attempt_id),
        })),
      };
    },
    decide({ stream, live, registered }) {
      const decided = decideDesiredWrite(stream, live, registered, write, newId);
      if (!decided.ok) return decided;
      const { events, generation, nodes } = decided.value;
      return ok({
        events,
        // A first write creates the stream; a concurrent first write re-runs and finds it.
        expectedVersions: stream === null ? { [streamStream(write.streamId)]: 0 } : {},
        jobs: nodes.map((n) => reconcileJob(n)),
        result: { generation, nodes },
      });
    },
  };
}
