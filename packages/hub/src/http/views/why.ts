import {
  approvalStream,
  intentStream,
  nodeStream,
  rolloutStream,
  streamStream,
  type RecordedFleetEvent,
  type ReportMark,
} from '@fleetplane/core';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../database/connect.ts';
import { EVENT_COLUMNS, toRecordedEvent } from '../../event-store/recorded.ts';

/** What an event of the chain is to the attempt. */
const Relation = z.enum([
  'queued', // the worker decision that queued this attempt
  'retried_after', // the failure of the previous attempt that left the intent retrying
  'reopened', // the intent, ambiguous, was reopened by a newer report …
  'reported', // … this one
  'opened', // the intent was opened …
  'desired', // … by this desired write (lifecycle)
  'batch_started', // … by this rollout batch (configuration)
  'restore_opened', // … by this restore of a rollout's recovery point …
  'gate_failed', // … which the health executor opened for this failed health gate, with its evidence
  'rollout_created', // the rollout the intent belongs to
  'approved', // the approval that created the rollout …
  'submitted', // … and its submission
]);

export const WhyLink = z.object({
  relation: Relation,
  position: z.number(),
  stream_id: z.string(),
  type: z.string(),
  event_id: z.string(),
  actor: z.string(),
  role: z.string(),
  correlation_id: z.string(),
  source: z.string(),
  recorded_at: z.string(),
  data: z.record(z.string(), z.unknown()),
}).meta({ id: 'WhyLink' });
export type WhyLink = z.infer<typeof WhyLink>;

const link = (relation: z.infer<typeof Relation>, e: RecordedFleetEvent): WhyLink => ({
  relation,
  position: e.position,
  stream_id: e.streamId,
  type: e.type,
  event_id: e.eventId,
  actor: e.metadata.actor,
  role: e.metadata.role,
  correlation_id: e.metadata.correlation_id,
  source: e.metadata.source,
  recorded_at: e.recordedAt.toISOString(),
  data: { ...e.data },
});

const events = (db: Db, streamId: string) => db.selectFrom('events').select(EVENT_COLUMNS).where('stream_id', '=', streamId).orderBy('stream_version');
/** Read as every reader reads: upcast to the type's current shape. */
const first = async (q: ReturnType<typeof events>) => {
  const row = await q.executeTakeFirst();
  return row && toRecordedEvent(row);
};
const all = async (q: ReturnType<typeof events>) => (await q.execute()).map(toRecordedEvent);

/**
 * The node's report with this mark. A report of schema version 2 names only its sequence: its boot is the one
 * the node had registered last before it (NodeReportedData); one of version 1 names both.
 */
async function reportOf(db: Db, nodeId: string, mark: ReportMark): Promise<RecordedFleetEvent | undefined> {
  const candidates = await all(
    events(db, nodeStream(nodeId))
      .where('type', '=', 'NodeReported')
      .where(sql<number>`(CASE WHEN schema_version = 1 THEN data->>'report_seq' ELSE data->>'seq' END)::bigint`, '=', mark.seq),
  );
  for (const e of candidates) {
    if (e.type !== 'NodeReported') continue;
    const registered = await all(events(db, nodeStream(nodeId)).where('type', '=', 'NodeRegistered').where('stream_version', '<', e.streamVersion));
    const bootId = e.data.boot_id ?? registered.findLast((r) => r.type === 'NodeRegistered')?.data.boot_id;
    if (bootId === mark.bootId) return e;
  }
  return undefined;
}

/**
 * Why an attempt exists, from the attempt back to what a person or a node did: the event that queued it,
 * what made its intent want it then (a retry after a failure, or a report that reopened it), the opening of
 * its intent and the command that opened it (a desired write; a rollout batch or restore, the rollout's
 * creation and its approval). Links follow the ids recorded in event data, not correlation ids: a worker
 * pass serves every request that asked for it but carries only the first one's correlation id.
 * Empty when the attempt was never queued (it does not exist).
 */
export async function readWhy(db: Db, intentId: string, attemptId: string): Promise<WhyLink[]> {
  const queued = await first(events(db, intentStream(intentId)).where('type', '=', 'AttemptQueued').where(sql<string>`data->>'attempt_id'`, '=', attemptId));
  if (!queued) return [];
  const chain = [link('queued', queued)];
  const before = await all(
    events(db, intentStream(intentId))
      .where('stream_version', '<', queued.streamVersion)
      .where('type', 'in', ['IntentOpened', 'IntentReopened', 'AttemptFailed']),
  );
  const opened = before.find((e) => e.type === 'IntentOpened');
  const intent = opened?.data;
  const reason = before.findLast((e) => e.type === 'IntentReopened' || (e.type === 'AttemptFailed' && e.data.intent_state === 'retrying'));
  if (reason?.type === 'AttemptFailed') chain.push(link('retried_after', reason));
  if (reason?.type === 'IntentReopened') {
    chain.push(link('reopened', reason));
    const { report } = reason.data;
    const reported = intent ? await reportOf(db, intent.node_id, report) : undefined;
    if (reported) chain.push(link('reported', reported));
  }
  if (!opened || !intent) return chain;
  chain.push(link('opened', opened));
  if (!intent.rollout_id) {
    const desired = intent.stream_id
      ? await first(events(db, streamStream(intent.stream_id)).where('type', '=', 'StreamDesired').where(sql<number>`(data->>'generation')::bigint`, '=', intent.generation))
      : undefined;
    if (desired) chain.push(link('desired', desired));
    return chain;
  }
  const rollout = await all(
    events(db, rolloutStream(intent.rollout_id)).where((eb) =>
      eb.or([
        eb.and([eb('type', '=', 'RolloutBatchStarted'), sql<boolean>`data->'intents' @> ${JSON.stringify([{ intent_id: intentId }])}::jsonb`]),
        eb.and([eb('type', '=', 'RolloutRestoreOpened'), eb(sql<string>`data->>'intent_id'`, '=', intentId)]),
        eb('type', '=', 'RolloutCreated'),
      ]),
    ),
  );
  const cause = rollout.find((e) => e.type !== 'RolloutCreated');
  if (cause) chain.push(link(cause.type === 'RolloutRestoreOpened' ? 'restore_opened' : 'batch_started', cause));
  // A restore the health executor opened was caused by the gate's failure (SPEC L7).
  const causation = cause?.type === 'RolloutRestoreOpened' ? cause.metadata.causation_id : null;
  const gate = causation ? await first(events(db, rolloutStream(intent.rollout_id)).where('event_id', '=', causation).where('type', '=', 'RolloutGateFailed')) : undefined;
  if (gate) chain.push(link('gate_failed', gate));
  const created = rollout.find((e) => e.type === 'RolloutCreated');
  if (!created) return chain;
  chain.push(link('rollout_created', created));
  const { approval_id } = created.data;
  if (approval_id) {
    const approval = await all(events(db, approvalStream(approval_id)).where('type', 'in', ['ApprovalApproved', 'ApprovalSubmitted']));
    for (const type of ['ApprovalApproved', 'ApprovalSubmitted'] as const) {
      const e = approval.find((a) => a.type === type);
      if (e) chain.push(link(type === 'ApprovalApproved' ? 'approved' : 'submitted', e));
    }
  }
  return chain;
}
