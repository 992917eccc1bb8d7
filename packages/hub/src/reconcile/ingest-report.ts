import { decideReport, ok, type IntentState, type Report, type ReportingNode, type StreamTarget } from '@fleetplane/core';
import type { Command } from '../commands/pipeline.ts';
import { lockLiveIntents, toIntent } from './load.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  node: ReportingNode | null;
  intents: IntentState[];
  /** Read only while a configuration intent is live (SPEC A10). */
  streams: StreamTarget[];
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
      if (!row) return { node: null, intents: [], streams: [] };
      const intents = await lockLiveIntents(trx).where('node_id', '=', report.node_id).execute();
      const streams = intents.some((i) => i.kind === 'configuration')
        ? await trx
            .selectFrom('intents')
            .select(['stream_id', 'generation', 'desired_state', 'action_id'])
            .distinctOn('stream_id')
            .where('node_id', '=', report.node_id)
            .where('kind', '=', 'lifecycle')
            .orderBy('stream_id')
            .orderBy('generation', 'desc')
            .execute()
        : [];
      return {
        node: {
          nodeId: report.node_id,
          lastReport: row.report_boot_id !== null ? { bootId: row.report_boot_id, seq: row.last_report_seq ?? 0 } : null,
          digest: row.report_digest,
        },
        intents: intents.map(toIntent),
        streams: streams.map((r) => ({ streamId: r.stream_id, generation: r.generation, desiredState: r.desired_state, actionId: r.action_id })),
      };
    },
    decide({ node, intents, streams }, now) {
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
      const converged = new Set(events.filter((e) => e.type === 'IntentConverged').map((e) => (e.data as { intent_id: string }).intent_id));
      const convergedAfterMs = intents.filter((i) => converged.has(i.intentId)).map((i) => now.getTime() - i.openedAt.getTime());
      const jobs = [...(reconcile ? [reconcileJob(report.node_id)] : []), ...rollouts.map((r) => rolloutJob(r))];
      return ok({ events, jobs, result: { accepted: true, convergedAfterMs } });
    },
  };
}
