import { decideReport, ok, type IntentState, type Report, type ReportingNode } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { lockLiveIntents, toIntent } from './load.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  node: ReportingNode | null;
  intents: IntentState[];
}

/** POST /agent/reports: one full report of the calling agent's node. */
export function ingestReport(report: Report): Command<Loaded, { accepted: boolean; convergedAfterMs: number[] }> {
  return {
    name: 'IngestReport',
    async load(trx) {
      const row = await trx
        .selectFrom('nodes')
        .select(['report_boot_id', 'last_report_seq', 'report_digest'])
        .where('node_id', '=', report.node_id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return { node: null, intents: [] };
      const intents = await lockLiveIntents(trx).where('node_id', '=', report.node_id).execute();
      return {
        node: {
          nodeId: report.node_id,
          lastReport: row.report_boot_id !== null ? { bootId: row.report_boot_id, seq: row.last_report_seq ?? 0 } : null,
          digest: row.report_digest,
        },
        intents: intents.map(toIntent),
      };
    },
    decide({ node, intents }, now) {
      if (!node) {
        return { ok: false, error: { code: 'node_not_registered', message: `node ${report.node_id} must register before it reports` } };
      }
      const decided = decideReport(node, report, intents);
      if (!decided.ok) {
        // A8: a replayed or stale report is ignored, not an error.
        return decided.error.code === 'stale_report' ? ok({ events: [], result: { accepted: false, convergedAfterMs: [] } }) : decided;
      }
      const { events, reconcile } = decided.value;
      // Reconciliation latency: from the desired write to the report that proves it.
      const converged = new Set(events.filter((e) => e.type === 'IntentConverged').map((e) => (e.data as { intent_id: string }).intent_id));
      const convergedAfterMs = intents.filter((i) => converged.has(i.intentId)).map((i) => now.getTime() - i.openedAt.getTime());
      return ok({ events, jobs: reconcile ? [reconcileJob(report.node_id)] : [], result: { accepted: true, convergedAfterMs } });
    },
  };
}
