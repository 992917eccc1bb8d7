import { decideReport, ok, retiredRefusal, type IntentState, type Report, type ReportingNode, type StreamTarget } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import { keyed, prepared, together } from '../database/transaction-plan.ts';
import type { IntentsTable, NodesTable, Tables } from '../database/tables.ts';
import { lockLiveIntents, newestLifecycleIntents, toIntent } from './load.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { reconcileJob, streamRemovalJob } from './queues.ts';
import { nodeUnheard, restoredAtColumn } from './unheard.ts';

type ReportingRow = Pick<Selectable<NodesTable>, 'node_id' | 'boot_id' | 'report_boot_id' | 'last_report_seq' | 'report_digest' | 'last_report_at'> & { restored_at: Date | null };

interface Loaded {
  node: ReportingNode | null;
  intents: IntentState[];
  /** Read only while a configuration intent is live (SPEC A10). */
  streams: StreamTarget[];
  /** Set when the node was retired: its agent reports no more (issue 22). Read only for nodes without a row. */
  retiredAt: Date | null;
  /** The node has not reported since the Hub's database was restored: this report lets its pass send again (unheard.ts). */
  firstSinceRestore: boolean;
}

/**
 * Locks the reporting nodes' rows (in id order, as every batch does, so batches never deadlock) and their
 * live intents, in one round trip, and reads the stream targets of nodes with a live configuration intent:
 * at most two round trips however many nodes report together. Prepared, named by their keys' count (`keyed`).
 */
async function loadReporting(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<Map<string, Loaded>> {
  const { match: byNode, name } = keyed(nodeIds, 'report', 'reports');
  const [rows, intents] = await together<[ReportingRow, Selectable<IntentsTable>]>(trx, [
    prepared(
      name('nodes'),
      trx
        .selectFrom('nodes')
        .select(['node_id', 'boot_id', 'report_boot_id', 'last_report_seq', 'report_digest', 'last_report_at', restoredAtColumn()])
        .where('node_id', '=', byNode)
        .orderBy('node_id')
        .forUpdate(),
    ),
    // A node that is not registered has no intents.
    prepared(name('intents'), lockLiveIntents(trx).where('node_id', '=', byNode)),
  ]);
  const loaded = new Map<string, Loaded>(nodeIds.map((id) => [id, { node: null, intents: [], streams: [], retiredAt: null, firstSinceRestore: false }]));
  if (rows.length < nodeIds.length) {
    // A node without a row never registered, or was retired: a second read, on this refusal's path only.
    const missing = nodeIds.filter((id) => !rows.some((r) => r.node_id === id));
    const retired = await trx.selectFrom('retired_nodes').select(['node_id', 'retired_at']).where('node_id', 'in', missing).execute();
    for (const r of retired) loaded.get(r.node_id)!.retiredAt = r.retired_at;
  }
  for (const row of rows) {
    loaded.set(row.node_id, {
      node: {
        nodeId: row.node_id,
        bootId: row.boot_id,
        lastReport: row.report_boot_id !== null ? { bootId: row.report_boot_id, seq: row.last_report_seq ?? 0 } : null,
        digest: row.report_digest,
      },
      intents: [],
      streams: [],
      retiredAt: null,
      firstSinceRestore: nodeUnheard(row) !== null,
    });
  }
  for (const intent of intents) loaded.get(intent.node_id)!.intents.push(toIntent(intent));
  const configuring = [...new Set(intents.filter((i) => i.kind === 'configuration').map((i) => i.node_id))];
  if (configuring.length === 0) return loaded;
  // Each stream's latest lifecycle generation on the node: what a configuration's convergence also needs.
  const lifecycle = prepared(keyed(configuring, 'report', 'reports').name('lifecycle'), newestLifecycleIntents(trx, configuring));
  const { rows: streams } = await trx.executeQuery(lifecycle.compile());
  for (const r of streams) {
    loaded.get(r.node_id)!.streams.push({ streamId: r.stream_id, generation: r.generation, desiredState: r.desired_state, actionId: r.action_id });
  }
  return loaded;
}

/** POST /agent/reports: one full report of the calling agent's node. Reports arriving together load together. */
export function ingestReport(report: Report): Command<Loaded, { accepted: boolean; convergedAfterMs: number[] }> {
  return {
    name: 'IngestReport',
    bulk: { kind: 'report', key: report.node_id, loadMany: loadReporting },
    load: async (trx) => (await loadReporting(trx, [report.node_id])).get(report.node_id)!,
    decide({ node, intents, streams, retiredAt, firstSinceRestore }, now) {
      if (retiredAt) return retiredRefusal(report.node_id, retiredAt);
      if (!node) {
        return { ok: false, error: { code: 'node_not_registered', message: `node ${report.node_id} must register before it reports` } };
      }
      const decided = decideReport(node, report, intents, streams);
      if (!decided.ok) {
        // A8: a replayed or stale report is ignored, not an error.
        return decided.error.code === 'stale_report' ? ok({ events: [], result: { accepted: false, convergedAfterMs: [] } }) : decided;
      }
      const { events, reconcile, rollouts } = decided.value;
      // Reconciliation latency: from the desired write to the report that proves it.
      const converged = new Set(events.flatMap((e) => (e.type === 'IntentConverged' ? [e.data.intent_id] : [])));
      const convergedAfterMs = intents.filter((i) => converged.has(i.intentId)).map((i) => now.getTime() - i.openedAt.getTime());
      // A stream being deleted is removed once its stops converge: each converged stop asks for the check.
      const stopped = intents.filter((i) => converged.has(i.intentId) && i.kind === 'lifecycle' && i.desiredState === 'stopped' && i.streamId !== null);
      const removals = [...new Set(stopped.map((i) => i.streamId!))].map((s) => streamRemovalJob(s));
      // The first report since a restore: the node's pass sends what waited for it, and wakes its long poll.
      const jobs = [...(reconcile || firstSinceRestore ? [reconcileJob(report.node_id)] : []), ...rollouts.map((r) => rolloutJob(r)), ...removals];
      return ok({ events, jobs, result: { accepted: true, convergedAfterMs } });
    },
  };
}
