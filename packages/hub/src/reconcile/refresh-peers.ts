import { decidePeersMoved, ok, writeNodes, type SentShare } from '@fleetplane/core';
import { sql, type Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { together } from '../database/transaction-plan.ts';
import type { AttemptsTable } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { barrierPassJob } from './queues.ts';
import { loadStream, type LoadedStream } from './write-desired.ts';

interface Loaded extends LoadedStream {
  /** Each node's newest start of the current generation that reached or may reach it, with the share it carried. */
  sent: SentShare[];
  /** The data address of each node of the placement now. */
  addresses: Map<string, string | null>;
}

/** The `split-peers` job (SPEC E4): a new generation of a split placement whose nodes hold a peer's old data address. */
export function refreshPeers(streamId: string): Command<Loaded, { generation: number; nodes: string[] }> {
  return {
    name: 'RefreshSplitPeers',
    async load(trx) {
      const loaded = await loadStream(trx, streamId);
      if (!loaded.stream?.placement.split) return { ...loaded, sent: [], addresses: new Map() };
      const { generation, placement } = loaded.stream;
      // A superseded attempt never ran, and a failed one is retried with the addresses of its retry.
      const [attempts, nodes] = await together<[Pick<Selectable<AttemptsTable>, 'node_id' | 'placement'>, { node_id: string; data_address: string | null }]>(trx, [
        trx
          .selectFrom('attempts')
          .select(['node_id', 'placement'])
          .distinctOn('node_id')
          .where('stream_id', '=', streamId)
          .where('generation', '=', generation)
          .where('placement', 'is not', null)
          .where('state', 'not in', ['superseded', 'failed'])
          .orderBy('node_id')
          .orderBy('created_at', 'desc'),
        trx.selectFrom('nodes').select(['node_id', 'data_address']).where(sql<boolean>`node_id = any(${placement.nodes})`),
      ]);
      return {
        ...loaded,
        sent: attempts.map((a) => ({ nodeId: a.node_id, peers: a.placement?.peers ?? [] })),
        addresses: new Map(nodes.map((n) => [n.node_id, n.data_address])),
      };
    },
    decide({ stream, deletion, live, registered, reported, sent, addresses }) {
      const write = { streamId, desired: null, actionId: null, ifMatch: stream?.generation ?? null, overrideHold: false };
      const intentIds = new Map(writeNodes(stream, live, write).map((n) => [n, newId('in')]));
      const decided = decidePeersMoved(stream, deletion, live, registered, sent, addresses, intentIds, reported);
      if (!decided.ok) return decided;
      const { events, generation, nodes } = decided.value;
      // The new intents are not locked by anything a pass of their node waits for (the generation's intents there
      // had converged): their passes wait for this commit instead (barrierPassJob).
      return ok({ events, jobs: nodes.map((n) => barrierPassJob(n)), result: { generation, nodes } });
    },
  };
}
