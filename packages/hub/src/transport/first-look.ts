import { sql } from 'kysely';
import type { Db } from '../database/connect.ts';
import { batchedLookup } from '../database/batched-lookup.ts';
import { keyed, prepared, together } from '../database/transaction-plan.ts';

/** What a long poll learns before it waits: whether its node was retired, and whether it has a committed queued attempt. */
export interface FirstLook {
  retiredAt: Date | null;
  queued: boolean;
}

const NOTHING: FirstLook = { retiredAt: null, queued: false };

/**
 * The long polls' first looks, outside the pipeline: two index probes per node, the polls that arrive while a
 * look runs taking the next one together (database/batched-lookup.ts). Most polls of an idle fleet find
 * nothing, and they come back all the time (each at the end of its wait): a locking transaction each would cost
 * a large fleet most of the Hub, and a round trip each a good part of it. Prepared, named by their keys' count.
 */
export function firstLooks(db: Db): (nodeId: string) => Promise<FirstLook> {
  return batchedLookup(async (nodeIds) => {
    const { match, name } = keyed(nodeIds, 'poll', 'polls');
    const [retired, queued] = await together<[{ node_id: string; retired_at: Date }, { node_id: string }]>(db, [
      prepared(name('retired'), db.selectFrom('retired_nodes').select(['node_id', 'retired_at']).where('node_id', '=', match)),
      prepared(name('queued'), db.selectFrom('attempts').select('node_id').distinct().where('node_id', '=', match).where('state', '=', sql.lit('queued'))),
    ]);
    const looks = new Map<string, FirstLook>(nodeIds.map((id) => [id, { ...NOTHING }]));
    for (const r of retired) looks.get(r.node_id)!.retiredAt = r.retired_at;
    for (const q of queued) looks.get(q.node_id)!.queued = true;
    return looks;
  }, NOTHING);
}
