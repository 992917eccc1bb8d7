import { countTargets, HealthGate, ROLLOUT_STATES, rolloutRecovery, shownGateState, TARGET_STATES, targetWaits, type ShownGateState, type TargetCounts, type WaitingTarget } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { RolloutsTable, Tables } from '../../database/tables.ts';
import type { HubContext } from '../context.ts';
import { gateStatusOf } from '../../rollouts/load.ts';
import { HttpError } from '../errors.ts';
import { readIntentWaits, WaitingOnView, waitingOnView } from './waiting.ts';

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

/** A rollout with every target, and what each target that has not settled waits on, at read time. */
export async function readRolloutView(hub: HubContext, rolloutId: string): Promise<RolloutView> {
  const db = hub.database.db;
  const row = await db.selectFrom('rollouts').selectAll().where('rollout_id', '=', rolloutId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'rollout_not_found', `no rollout ${rolloutId}`, { rollout_id: rolloutId });
  const targets = await db
    .selectFrom('rollout_targets as t')
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
    .where('t.rollout_id', '=', rolloutId)
    .orderBy('t.batch')
    .orderBy('t.node_id')
    .execute();
  const recovery = rolloutRecovery(targets.map((t) => ({ state: t.state, recovery: { phase: t.recovery_phase, claim: t.recovery_claim } })));
  const applying = targets.flatMap((t) => (t.state === 'applying' && t.intent_id ? [t.intent_id] : []));
  const intents = applying.length ? await db.selectFrom('intents').selectAll().where('intent_id', 'in', applying).execute() : [];
  const intentWaits = await readIntentWaits(hub, intents);
  const waitingTargets = targets.map(
    (t): WaitingTarget => ({
      nodeId: t.node_id,
      batch: t.batch,
      state: t.state,
      recovery: { phase: t.recovery_phase, claim: t.recovery_claim },
      recoveryIntentId: t.recovery_intent_id,
    }),
  );
  const waitsOf = targetWaits({ state: row.state, pausedReason: row.paused_reason, currentBatch: row.current_batch, gateStatus: gateStatusOf(row), targets: waitingTargets });
  return {
    ...rolloutSummary(row, countTargets(targets), recovery),
    targets: targets.map((t, i) => {
      const intentWait = (t.intent_id && intentWaits.get(t.intent_id)) || null;
      return {
        node_id: t.node_id,
        batch: t.batch,
        state: t.state,
        intent_id: t.intent_id,
        intent_state: t.intent_state,
        waiting_on: waitingOnView(waitsOf(waitingTargets[i]!, intentWait)),
        applied_config_version: t.applied_config_version,
        failure_class: t.failure_class,
        failure_code: t.failure_code,
        failure_message: t.failure_message,
        correlation_id: t.correlation_id,
        recovery_phase: t.recovery_phase,
        recovery_claim: t.recovery_claim && t.recovery_claim_at ? { class: t.recovery_claim, code: t.recovery_claim_code, at: t.recovery_claim_at.toISOString() } : null,
      };
    }),
  };
}
