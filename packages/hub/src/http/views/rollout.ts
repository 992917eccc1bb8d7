import { countTargets, HealthGate, ROLLOUT_STATES, rolloutRecovery, shownGateState, TARGET_STATES, targetWaits, type ShownGateState, type TargetStateName, type TargetCounts, type WaitingTarget } from '@fleetplane/core';
import { sql, type Kysely, type Selectable } from 'kysely';
import { z } from 'zod';
import type { RolloutsTable, Tables } from '../../database/tables.ts';
import type { HubContext } from '../context.ts';
import { gateStatusOf } from '../../rollouts/load.ts';
import { HttpError } from '../errors.ts';
import { readIntentWaits, WaitingOnView, waitingOnView } from './waiting.ts';
import type { ChunkedList } from '../chunked-list.ts';
import { readInSnapshot } from '../snapshot-read.ts';

export const RolloutTargetView = z.object({
  node_id: z.string(),
  batch: z.number(),
  state: z.enum(['waiting', 'applying', 'converged', 'failed', 'cancelled']),
  intent_id: z.string().nullable(),
  intent_state: z.string().nullable(),
  /** What the target waits on now (SPEC G5, issue 22): its intent's wait, its batch, a pause or a recovery hold; null once settled. */
  waiting_on: WaitingOnView,
  applied_config_version: z.string().nullable(),
  failure_class: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  correlation_id: z.string().nullable(),
  recovery_phase: z.enum(['restoring', 'complete', 'failed']).nullable(),
  /** What a failed restore left, in fields of its own (SPEC I7): its class, code and time. */
  recovery_claim: z.object({ class: z.enum(['pre_mutation', 'post_mutation', 'unknown']), code: z.string().nullable(), at: z.string() }).nullable(),
}).meta({ id: 'RolloutTargetView' });
export type RolloutTargetView = z.infer<typeof RolloutTargetView>;

const GateEvidenceView = z.object({
  node_id: z.string(),
  stream_id: z.string().nullable(),
  reason: z.enum(['unhealthy', 'not_running', 'offline', 'version_changed']),
  detail: z.string(),
  since: z.string().nullable(),
});

/**
 * The health gate of the batch it last watched (SPEC L5): soaking until `until`, passed, failed with its
 * evidence, or stopped: its rollout was paused, cancelled or rolled back while the batch soaked.
 */
const GateView = z.object({
  batch: z.number(),
  state: z.enum(['soaking', 'passed', 'failed', 'stopped']),
  since: z.string(),
  until: z.string().nullable(),
  evidence: z.array(GateEvidenceView),
  /** What the health executor did about a failed gate that asked for a rollback (SPEC L7-L9), or null. */
  action: z.enum(['opened', 'skipped', 'approval_required', 'failed']).nullable(),
});

const TargetCountsView = z.object({
  waiting: z.number().int(),
  applying: z.number().int(),
  converged: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

/** A rollout as lists show it: everything but its targets, which may be 10,000; `target_counts` says how many are in each state. */
export const RolloutSummary = z.object({
  rollout_id: z.string(),
  kind: z.enum(['rollout', 'apply', 'rollback']),
  config_version: z.string(),
  state: z.enum(ROLLOUT_STATES),
  paused_reason: z.string().nullable(),
  batch_size: z.number(),
  batches: z.number(),
  current_batch: z.number(),
  /** Derived from the live targets (SPEC I5, I6): a restore in flight, or a claim that may have moved a target. */
  recovery: z.enum(['none', 'restoring', 'recovery_required']),
  selector: z.record(z.string(), z.string()).nullable(),
  created_by: z.string(),
  approval_id: z.string().nullable(),
  rollback_of: z.string().nullable(),
  rolled_back_by: z.string().nullable(),
  correlation_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Its health gate as created (SPEC L3), or null. */
  health: HealthGate.nullable(),
  gate: GateView.nullable(),
  target_counts: TargetCountsView,
}).meta({ id: 'RolloutSummary' });
export type RolloutSummary = z.infer<typeof RolloutSummary>;

/**
 * One rollout without its targets (GET /rollouts/{id}/summary): as the list shows it, and its targets counted
 * by state in each batch, `batch_counts[b]` for the batch a target's `batch` names.
 */
export const RolloutSummaryWithBatches = RolloutSummary.extend({ batch_counts: z.array(TargetCountsView) }).meta({ id: 'RolloutSummaryWithBatches' });
export type RolloutSummaryWithBatches = z.infer<typeof RolloutSummaryWithBatches>;

export const RolloutView = RolloutSummary.extend({ targets: z.array(RolloutTargetView) }).meta({ id: 'RolloutView' });
export type RolloutView = z.infer<typeof RolloutView>;

type RolloutRow = Selectable<RolloutsTable>;

const gateView = (row: RolloutRow, state: ShownGateState, since: Date): z.infer<typeof GateView> => ({
  batch: row.gate_batch!,
  state,
  since: since.toISOString(),
  until: state === 'soaking' ? (row.gate_until?.toISOString() ?? null) : null,
  evidence: row.gate_evidence ?? [],
  action: row.gate_action,
});

function rolloutSummary(row: RolloutRow, counts: TargetCounts, recovery: RolloutSummary['recovery']): RolloutSummary {
  return {
    rollout_id: row.rollout_id,
    kind: row.kind,
    config_version: row.config_version,
    state: row.state,
    paused_reason: row.paused_reason,
    batch_size: row.batch_size,
    batches: row.batches,
    current_batch: row.current_batch,
    recovery,
    selector: row.selector,
    created_by: row.created_by,
    approval_id: row.approval_id,
    rollback_of: row.rollback_of,
    rolled_back_by: row.rolled_back_by,
    correlation_id: row.correlation_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    health: row.health_gate,
    gate:
      row.gate_batch !== null && row.gate_state !== null && row.gate_since !== null
        ? gateView(row, shownGateState(row.state, row.gate_state), row.gate_since)
        : null,
    target_counts: counts,
  };
}

/**
 * Rollouts as a list shows them: their targets' counts as their rows keep them (the projection moves them with
 * the targets), and the recovery of the few targets that have one, by its index: no other target row is read,
 * however many a rollout has.
 */
export async function readRolloutSummaries(db: Kysely<Tables>, rows: readonly RolloutRow[]): Promise<RolloutSummary[]> {
  if (rows.length === 0) return [];
  const recovering = await db
    .selectFrom('rollout_targets')
    .select(['rollout_id', 'state', 'recovery_phase', 'recovery_claim'])
    .where('rollout_id', 'in', rows.map((r) => r.rollout_id))
    .where('recovery_phase', 'is not', null)
    .execute();
  return rows.map((row) => {
    const own = recovering.filter((g) => g.rollout_id === row.rollout_id);
    const counts = Object.fromEntries(TARGET_STATES.map((s) => [s, row[`targets_${s}`]])) as TargetCounts;
    return rolloutSummary(row, counts, rolloutRecovery(own.map((g) => ({ state: g.state, recovery: { phase: g.recovery_phase, claim: g.recovery_claim } }))));
  });
}

async function readRolloutRow(db: Kysely<Tables>, rolloutId: string): Promise<RolloutRow> {
  const row = await db.selectFrom('rollouts').selectAll().where('rollout_id', '=', rolloutId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'rollout_not_found', `no rollout ${rolloutId}`, { rollout_id: rolloutId });
  return row;
}

/** A rollout's target rows, alone: a page's conditions and limit go here, before its rows are joined. */
const rolloutTargets = (db: Kysely<Tables>, rolloutId: string) => db.selectFrom('rollout_targets as t').selectAll('t').where('t.rollout_id', '=', rolloutId);

/** These target rows with their intents' states and their nodes' applied versions, in batch then node order. */
const targetRows = (db: Kysely<Tables>, targets: ReturnType<typeof rolloutTargets>) =>
  db
    .selectFrom(targets.as('t'))
    .leftJoin('intents as i', 'i.intent_id', 't.intent_id')
    .leftJoin('nodes as n', 'n.node_id', 't.node_id')
    .select([
      't.node_id',
      't.batch',
      't.state',
      't.intent_id',
      'i.state as intent_state',
      't.failure_class',
      't.failure_code',
      't.failure_message',
      't.correlation_id',
      'n.applied_config_version',
      't.recovery_phase',
      't.recovery_claim',
      't.recovery_claim_code',
      't.recovery_claim_at',
      't.recovery_intent_id',
    ])
    .orderBy('t.batch')
    .orderBy('t.node_id');
type TargetRow = Awaited<ReturnType<ReturnType<typeof targetRows>['execute']>>[number];

const waitingTarget = (t: Pick<TargetRow, 'node_id' | 'batch' | 'state' | 'recovery_phase' | 'recovery_claim' | 'recovery_intent_id'>): WaitingTarget => ({
  nodeId: t.node_id,
  batch: t.batch,
  state: t.state,
  recovery: { phase: t.recovery_phase, claim: t.recovery_claim },
  recoveryIntentId: t.recovery_intent_id,
});

/** The holding context of the targets shown (readHoldingContext), read at most once for all the chunks of one answer. */
type HoldingContext = (shown: readonly TargetRow[]) => Promise<WaitingTarget[]>;

/**
 * The targets of the rollout that what a target not started waits on depends on, whichever targets are shown:
 * those with a recovery (any may hold the rollout) and the current batch's first open one, each by its index
 * (`rollout_targets_recovering`, `rollout_targets_by_batch`), in batch then node order. Read only when a shown
 * target waits for its batch in an applying rollout, otherwise nothing asks; and once, however many chunks of
 * targets ask, which an answer read in one snapshot may (they are the same rows for all of them).
 */
function holdingContext(db: Kysely<Tables>, row: RolloutRow): HoldingContext {
  let read: Promise<WaitingTarget[]> | null = null;
  return (shown) => (row.state !== 'applying' || !shown.some((t) => t.state === 'waiting') ? Promise.resolve([]) : (read ??= readHoldingContext(db, row)));
}

async function readHoldingContext(db: Kysely<Tables>, row: RolloutRow): Promise<WaitingTarget[]> {
  const columns = ['node_id', 'batch', 'state', 'recovery_phase', 'recovery_claim', 'recovery_intent_id'] as const;
  const [recovering, open] = await Promise.all([
    db.selectFrom('rollout_targets').select(columns).where('rollout_id', '=', row.rollout_id).where('recovery_phase', 'is not', null).execute(),
    db
      .selectFrom('rollout_targets')
      .select(columns)
      .where('batch', '=', row.current_batch)
      .where('rollout_id', '=', row.rollout_id)
      .where('state', 'not in', ['cancelled', 'converged'])
      .orderBy('node_id')
      .limit(1)
      .execute(),
  ]);
  return [...recovering, ...open].sort((a, b) => a.batch - b.batch || (a.node_id < b.node_id ? -1 : a.node_id > b.node_id ? 1 : 0)).map(waitingTarget);
}

/** These targets of the rollout as views, with what each that has not settled waits on, at read time, read through `db`. */
async function targetViews(
  hub: HubContext,
  row: RolloutRow,
  targets: readonly TargetRow[],
  db: Kysely<Tables> = hub.database.db,
  holding: HoldingContext = holdingContext(db, row),
): Promise<RolloutTargetView[]> {
  const applying = targets.flatMap((t) => (t.state === 'applying' && t.intent_id ? [t.intent_id] : []));
  const [intents, held] = await Promise.all([applying.length ? db.selectFrom('intents').selectAll().where('intent_id', 'in', applying).execute() : [], holding(targets)]);
  const intentWaits = await readIntentWaits(hub, intents, db);
  const waitsOf = targetWaits({ state: row.state, pausedReason: row.paused_reason, currentBatch: row.current_batch, gateStatus: gateStatusOf(row), targets: held });
  return targets.map((t) => {
    const intentWait = (t.intent_id && intentWaits.get(t.intent_id)) || null;
    return {
      node_id: t.node_id,
      batch: t.batch,
      state: t.state,
      intent_id: t.intent_id,
      intent_state: t.intent_state,
      waiting_on: waitingOnView(waitsOf(waitingTarget(t), intentWait)),
      applied_config_version: t.applied_config_version,
      failure_class: t.failure_class,
      failure_code: t.failure_code,
      failure_message: t.failure_message,
      correlation_id: t.correlation_id,
      recovery_phase: t.recovery_phase,
      recovery_claim: t.recovery_claim && t.recovery_claim_at ? { class: t.recovery_claim, code: t.recovery_claim_code, at: t.recovery_claim_at.toISOString() } : null,
    };
  });
}

/** A rollout as GET /rollouts/{id} answers it: its targets a list read a chunk at a time while the answer is written. */
export type RolloutViewInChunks = Omit<RolloutView, 'targets'> & { targets: ChunkedList<RolloutTargetView> };

/**
 * A rollout with every target and what each target that has not settled waits on, at read time, all of one
 * snapshot (readInSnapshot): its summary as the list shows it (its targets counted by its row), then its
 * targets, read in batch then node order a chunk at a time as they are written.
 */
export function readRolloutView(hub: HubContext, rolloutId: string): Promise<RolloutViewInChunks> {
  return readInSnapshot(hub.database.db, async (read) => {
    const { summary, targets, views } = await rolloutRead(hub, read.trx, rolloutId);
    return { ...summary, targets: read.list(targets, views) };
  });
}

/**
 * The same, its targets read whole in one statement: the answer of a write (POST /rollouts, a rollout's
 * actions), which an Idempotency-Key's replay gives again, and which holds them all anyway.
 */
export function readWholeRolloutView(hub: HubContext, rolloutId: string): Promise<RolloutView> {
  return readInSnapshot(hub.database.db, async (read) => {
    const { summary, targets, views } = await rolloutRead(hub, read.trx, rolloutId);
    return { ...summary, targets: await views(await targets.execute()) };
  });
}

/** A rollout's head read through `trx` (404 when there is none), the query of its targets, and how rows of it become views. */
async function rolloutRead(hub: HubContext, trx: Kysely<Tables>, rolloutId: string) {
  const row = await readRolloutRow(trx, rolloutId);
  const [summary] = await readRolloutSummaries(trx, [row]);
  const holding = holdingContext(trx, row);
  return {
    summary: summary!,
    targets: targetRows(trx, rolloutTargets(trx, rolloutId)),
    views: (rows: readonly TargetRow[]) => targetViews(hub, row, rows, trx, holding),
  };
}

/**
 * A rollout's targets counted by batch and state in the database, one row a batch and state back to the Hub:
 * grouped in the order of `rollout_targets_in_order_by_state` (0027), an index-only scan of the rollout's
 * entries that fetches a target's row only where its page changed since the table's last vacuum.
 */
export const batchCounts = (db: Kysely<Tables>, rolloutId: string) =>
  db
    .selectFrom('rollout_targets')
    .select(['state', 'batch', sql<number>`count(*)::int`.as('n')])
    .where('rollout_id', '=', rolloutId)
    // The index's own predicate, as targetsPage says it.
    .where(sql<boolean>`batch >= 0`)
    .groupBy(['state', 'batch'])
    .orderBy('state')
    .orderBy('batch');

/** One rollout as the list shows it (its row and the targets that have a recovery), and its targets counted by batch. */
export async function readOneRolloutSummary(db: Kysely<Tables>, rolloutId: string): Promise<RolloutSummaryWithBatches> {
  const row = await readRolloutRow(db, rolloutId);
  const [[summary], counted] = await Promise.all([readRolloutSummaries(db, [row]), batchCounts(db, rolloutId).execute()]);
  const batches = Array.from({ length: row.batches }, () => countTargets([]));
  for (const c of counted) if (c.batch < row.batches) batches[c.batch]![c.state] = c.n;
  return { ...summary!, batch_counts: batches };
}

/** Where a page of targets starts: after this batch and node, as `targetsCursor` writes them. */
export interface TargetsCursor {
  batch: number;
  nodeId: string;
}
export const targetsCursor = (t: { batch: number; node_id: string }): string => `${t.batch}|${t.node_id}`;
export function parseTargetsCursor(text: string): TargetsCursor | null {
  const m = /^(\d{1,9})\|(.+)$/s.exec(text);
  return m ? { batch: Number(m[1]), nodeId: m[2]! } : null;
}

type TargetsQuery = { limit: number; cursor?: TargetsCursor | undefined; state?: TargetStateName | undefined; batch?: number | undefined; recovery?: 'holding' | undefined };

/**
 * The rows of a page of a rollout's targets in batch then node order, after `cursor`, of one state and batch
 * and only those holding the rollout if asked, and one more to tell whether a page follows: read by the indexes
 * of migration 0027, `limit` + 1 rows however many targets the rollout has. The page is taken before its rows
 * are joined to their intents and nodes: a plan made without statistics of a new rollout (estimating a few
 * targets) would otherwise join every target of it and sort them all for one page.
 */
export function targetsPage(db: Kysely<Tables>, rolloutId: string, query: TargetsQuery) {
  // `batch >= 0` as a literal: it names the indexes of 0027, which are partial on it.
  let q = rolloutTargets(db, rolloutId).where(sql<boolean>`t.batch >= 0`).orderBy('t.batch').orderBy('t.node_id').limit(query.limit + 1);
  if (query.state) q = q.where('t.state', '=', query.state);
  if (query.batch !== undefined) q = q.where('t.batch', '=', query.batch);
  // The live targets that hold the rollout (SPEC I5, I6, core's holdingTargets): few, found by `rollout_targets_recovering`.
  if (query.recovery === 'holding') {
    q = q
      .where('t.recovery_phase', 'is not', null)
      .where('t.state', '<>', 'cancelled')
      .where((w) => w.or([w('t.recovery_phase', '=', 'restoring'), w('t.recovery_claim', 'in', ['post_mutation', 'unknown'])]));
  }
  if (query.cursor) q = q.where(sql<boolean>`(t.batch, t.node_id) > (${query.cursor.batch}, ${query.cursor.nodeId})`);
  return targetRows(db, q);
}

/** A page of a rollout's targets (`targetsPage`), each with what it waits on, and the next page's cursor. */
export async function readRolloutTargets(
  hub: HubContext,
  rolloutId: string,
  query: TargetsQuery,
): Promise<{ items: RolloutTargetView[]; next_cursor: string | null }> {
  const row = await readRolloutRow(hub.database.db, rolloutId);
  const rows = await targetsPage(hub.database.db, rolloutId, query).execute();
  const page = rows.slice(0, query.limit);
  return { items: await targetViews(hub, row, page), next_cursor: rows.length > query.limit ? targetsCursor(page.at(-1)!) : null };
}
