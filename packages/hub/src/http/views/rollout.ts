import { effectiveMode, modeDispatches, ROLLOUT_STATES, rolloutRecovery } from '@fleetplane/core';
import { z } from 'zod';
import type { HubContext } from '../context.ts';
import { globalMode } from '../../reconcile/load.ts';
import { HttpError } from '../errors.ts';
import { liveness } from './node.ts';

export const RolloutTargetView = z.object({
  node_id: z.string(),
  batch: z.number(),
  state: z.enum(['waiting', 'applying', 'converged', 'failed', 'cancelled']),
  intent_id: z.string().nullable(),
  intent_state: z.string().nullable(),
  /** Why an applying target makes no progress now (SPEC G5), or null. */
  waiting_on: z.enum(['node_draining', 'node_offline', 'node_stale', 'mode']).nullable(),
  applied_config_version: z.string().nullable(),
  failure_class: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  correlation_id: z.string().nullable(),
  recovery_phase: z.enum(['restoring', 'complete', 'failed']).nullable(),
  /** What a failed restore left, in fields of its own (SPEC I7): its class, code and time. */
  recovery_claim: z.object({ class: z.enum(['pre_mutation', 'post_mutation', 'unknown']), code: z.string().nullable(), at: z.string() }).nullable(),
});

export const RolloutView = z.object({
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
  targets: z.array(RolloutTargetView),
});
export type RolloutView = z.infer<typeof RolloutView>;

/** A rollout with every target, and what each applying target waits on, at read time. */
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
      'n.maintenance',
      'n.last_seen_at',
      'n.mode_override',
      'n.applied_config_version',
      't.recovery_phase',
      't.recovery_claim',
      't.recovery_claim_code',
      't.recovery_claim_at',
    ])
    .where('t.rollout_id', '=', rolloutId)
    .orderBy('t.batch')
    .orderBy('t.node_id')
    .execute();
  const now = hub.clock.now();
  const mode = await globalMode(db, hub.config.file.reconciliation.mode);
  const recovery = rolloutRecovery(targets.map((t) => ({ state: t.state, recovery: { phase: t.recovery_phase, claim: t.recovery_claim } })));
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
    targets: targets.map((t) => {
      let waitingOn: z.infer<typeof RolloutTargetView>['waiting_on'] = null;
      if (t.state === 'applying' && t.last_seen_at) {
        const live = liveness(t.last_seen_at, now, hub.config);
        if (t.maintenance === 'draining') waitingOn = 'node_draining';
        else if (live !== 'online') waitingOn = live === 'offline' ? 'node_offline' : 'node_stale';
        else if (!modeDispatches(effectiveMode(mode, t.mode_override ?? null), 'configuration')) waitingOn = 'mode';
      }
      return {
        node_id: t.node_id,
        batch: t.batch,
        state: t.state,
        intent_id: t.intent_id,
        intent_state: t.intent_state,
        waiting_on: waitingOn,
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
