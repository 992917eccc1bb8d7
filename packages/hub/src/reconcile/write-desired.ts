import { decideDesiredWrite, LIVE_STATES, ok, refuseDuringDeletion, streamStream, writeNodes, type DesiredWrite, type LiveIntent, type StreamDeletion, type StreamState } from '@fleetplane/core';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { keyed, literals, namedBy, prepared, together } from '../database/transaction-plan.ts';
import type { IntentsTable, StreamsTable, Tables } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { lockLiveIntents, toIntent, toStream } from './load.ts';
import { backstopJob, barrierPassJob } from './queues.ts';

export interface LoadedStream {
  stream: StreamState | null;
  deletion: StreamDeletion;
  live: LiveIntent[];
  /** Which of the nodes the stream was placed on, or has live intents on, are registered (retired ones are not). */
  registered: Set<string>;
  /** The highest generation of the stream any node reports (0: none): a new generation goes past it (decideDesiredWrite). */
  reported: number;
}

/** One round trip, BEGIN included: the stream's row, then its live intents, locked, and what they name. */
export async function loadStream(trx: Kysely<Tables>, streamId: string): Promise<LoadedStream> {
  return (await loadStreams(trx, [streamId])).get(streamId)!;
}

/**
 * Streams as loadStream loads one, in one round trip however many: their rows locked in id order, then their
 * live intents locked in id order (as every locker of intents takes them), their queued attempts, which
 * of the nodes they were placed on, or have live intents on, are registered, and the highest generation of
 * each that a node reports. Prepared: a write alone keeps one
 * plan for every stream, writes together are planned once for all of them (`keyed`).
 */
export async function loadStreams(trx: Kysely<Tables>, streamIds: readonly string[]): Promise<Map<string, LoadedStream>> {
  const { match: byStream, name } = keyed(streamIds, 'desired_write', 'desired_writes');
  const [rows, intents, queued, registered, reported] = await together<
    [Selectable<StreamsTable>, Selectable<IntentsTable>, { attempt_id: string; intent_id: string }, { node_id: string }, { stream_id: string; generation: number }]
  >(trx, [
    prepared(name('streams'), trx.selectFrom('streams').selectAll().where('stream_id', '=', byStream).orderBy('stream_id').forUpdate()),
    prepared(name('intents'), lockLiveIntents(trx).where('stream_id', '=', byStream)),
    prepared(name('queued'), trx.selectFrom('attempts').select(['attempt_id', 'intent_id']).where('stream_id', '=', byStream).where('state', '=', sql.lit('queued'))),
    prepared(
      name('registered'),
      trx
        .selectFrom('nodes')
        .select('node_id')
        .where(
          namedBy(
            'node_id',
            trx
              .selectFrom('streams')
              .select(sql<string>`jsonb_array_elements_text(placement->'nodes')`.as('node_id'))
              .where('stream_id', '=', byStream)
              .union(trx.selectFrom('intents').select('node_id').where('stream_id', '=', byStream).where('state', 'in', literals(LIVE_STATES))),
          ),
        ),
    ),
    prepared(
      name('reported'),
      trx
        .selectFrom('observed_streams')
        .select(['stream_id', sql<number>`max(generation)::int`.as('generation')])
        .where('stream_id', '=', byStream)
        .groupBy('stream_id'),
    ),
  ]);
  // Registration is the node's, whichever stream asks.
  const registeredNodes = new Set(registered.map((n) => n.node_id));
  const loaded = new Map<string, LoadedStream>(streamIds.map((id) => [id, { stream: null, deletion: 'none', live: [], registered: registeredNodes, reported: 0 }]));
  for (const row of rows) {
    const stream = loaded.get(row.stream_id)!;
    stream.stream = toStream(row);
    stream.deletion = row.removed_at ? 'removed' : row.deletion_requested_at ? 'deleting' : 'none';
  }
  for (const r of reported) loaded.get(r.stream_id)!.reported = r.generation;
  for (const r of intents) {
    loaded.get(r.stream_id!)!.live.push({ ...toIntent(r), queuedAttempts: queued.filter((a) => a.intent_id === r.intent_id).map((a) => a.attempt_id) });
  }
  return loaded;
}

/**
 * Who passes a desired write's nodes first: the caller, as soon as the write commits (Reconciler.reconcileNow;
 * each node's job is then a backstop, due BACKSTOP_AFTER_MS later), or the job itself, due at once.
 */
export type FirstPass = 'caller' | 'job';

/**
 * PUT /streams/{id} and stream actions: a new generation, its intents, and a pass per node (`firstPass`). The
 * result names those nodes, so a caller that passes them does so at once.
 */
export function writeDesired(write: DesiredWrite, firstPass: FirstPass = 'caller'): Command<LoadedStream, { generation: number; nodes: string[] }> {
  return {
    name: 'WriteDesired',
    // Writes to different streams arriving together load together (their rows are disjoint).
    bulk: { kind: 'desired-write', key: write.streamId, loadMany: loadStreams },
    load: (trx) => loadStream(trx, write.streamId),
    decide({ stream, deletion, live, registered, reported }, now) {
      const refused = refuseDuringDeletion(deletion, write);
      if (!refused.ok) return refused;
      const intentIds = new Map(writeNodes(stream, live, write).map((n) => [n, newId('in')]));
      const decided = decideDesiredWrite(stream, live, registered, write, intentIds, reported);
      if (!decided.ok) return decided;
      const { events, generation, nodes } = decided.value;
      return ok({
        events,
        // A first write creates the stream; a concurrent first write re-runs and finds it.
        expectedVersions: stream === null ? { [streamStream(write.streamId)]: 0 } : {},
        jobs: nodes.map((n) => (firstPass === 'caller' ? backstopJob(n, now) : barrierPassJob(n))),
        result: { generation, nodes },
      });
    },
  };
}
