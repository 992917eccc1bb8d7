import type { RemovedStream } from '@fleetplane/core';
import { sql } from 'kysely';
import type { Db } from '../database/connect.ts';
import { batchedLookup } from '../database/batched-lookup.ts';
import { keyed, prepared, together } from '../database/transaction-plan.ts';

/**
 * What a long poll learns before it waits: whether its node was retired, whether it has a committed queued
 * attempt, and which streams it reports were removed.
 */
export interface FirstLook {
  retiredAt: Date | null;
  queued: boolean;
  removedStreams: readonly RemovedStream[];
}

const NOTHING: FirstLook = { retiredAt: null, queued: false, removedStreams: [] };

/**
 * The long polls' first looks, outside the pipeline: three index probes per node, the polls that arrive while a
 * look runs taking the next one together (database/batched-lookup.ts). Most polls of an idle fleet find
 * nothing, and they come back all the time (each at the end of its wait): a locking transaction each would cost
 * a large fleet most of the Hub, and a round trip each a good part of it. Prepared, named by their keys' count.
 */
export function firstLooks(db: Db): (nodeId: string) => Promise<FirstLook> {
  return batchedLookup(async (nodeIds) => {
    const { match, name } = keyed(nodeIds, 'poll', 'polls');
    const [retired, queued, removed] = await together<[{ node_id: string; retired_at: Date }, { node_id: string }, RemovedStream & { node_id: string }]>(db, [
      prepared(name('retired'), db.selectFrom('retired_nodes').select(['node_id', 'retired_at']).where('node_id', '=', match)),
      prepared(name('queued'), db.selectFrom('attempts').select('node_id').distinct().where('node_id', '=', match).where('state', '=', sql.lit('queued'))),
      prepared(
        name('removed'),
        db
          .selectFrom('observed_streams as o')
          .innerJoin('streams as s', 's.stream_id', 'o.stream_id')
          .select(['o.node_id', 'o.stream_id', 's.generation'])
          .where('o.node_id', '=', match)
          .where('s.removed_at', 'is not', null)
          .orderBy('o.stream_id'),
      ),
    ]);
    const removedOf = new Map<string, RemovedStream[]>();
    for (const { node_id, stream_id, generation } of removed) removedOf.set(node_id, [...(removedOf.get(node_id) ?? []), { stream_id, generation }]);
    const looks = new Map<string, FirstLook>(nodeIds.map((id) => [id, { ...NOTHING, removedStreams: removedOf.get(id) ?? [] }]));
    for (const r of retired) looks.get(r.node_id)!.retiredAt = r.retired_at;
    for (const q of queued) looks.get(q.node_id)!.queued = true;
    return looks;
  }, NOTHING);
}
