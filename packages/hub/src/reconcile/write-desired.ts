import { decideDesiredWrite, ok, streamStream, writeNodes, type DesiredWrite, type LiveIntent, type StreamState } from '@fleetplane/core';
import { sql, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { together } from '../database/transaction-plan.ts';
import type { IntentsTable, StreamsTable } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { LIVE_STATES, lockLiveIntents, toIntent, toStream } from './load.ts';
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
      // One round trip, BEGIN included: the stream's row, then its live intents, locked, and what they name.
      const [[row], intents, queued, registered] = await together<
        [Selectable<StreamsTable>, Selectable<IntentsTable>, { attempt_id: string; intent_id: string }, { node_id: string }]
      >(trx, [
        trx.selectFrom('streams').selectAll().where('stream_id', '=', write.streamId).forUpdate(),
        lockLiveIntents(trx).where('stream_id', '=', write.streamId),
        trx.selectFrom('attempts').select(['attempt_id', 'intent_id']).where('stream_id', '=', write.streamId).where('state', '=', 'queued'),
        trx
          .selectFrom('nodes')
          .select('node_id')
          .where('node_id', 'in', (eb) =>
            eb
              .selectFrom('streams')
              .select(sql<string>`jsonb_array_elements_text(placement->'nodes')`.as('node_id'))
              .where('stream_id', '=', write.streamId)
              .union(eb.selectFrom('intents').select('node_id').where('stream_id', '=', write.streamId).where('state', 'in', LIVE_STATES)),
          ),
      ]);
      return {
        stream: row ? toStream(row) : null,
        registered: new Set(registered.map((n) => n.node_id)),
        live: intents.map((r) => ({
          ...toIntent(r),
          queuedAttempts: queued.filter((a) => a.intent_id === r.intent_id).map((a) => a.attempt_id),
        })),
      };
    },
    decide({ stream, live, registered }) {
      const intentIds = new Map(writeNodes(stream, live, write).map((n) => [n, newId('in')]));
      const decided = decideDesiredWrite(stream, live, registered, write, intentIds);
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
