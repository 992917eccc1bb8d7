import { ROLLOUT_EVENT_TYPES } from '@fleetplane/core';
import type { Updateable } from 'kysely';
import type { RolloutsTable } from '../database/tables.ts';
import { literals } from '../database/transaction-plan.ts';
import { projection, type ProjectionQuery } from './projection.ts';

// Rows per INSERT when a rollout pins thousands of targets: well under PostgreSQL's 65,535 parameters.
const CHUNK = 2000;

/** The `rollouts` and `rollout_targets` tables: each rollout's state and batch, each target's progress. */
export const rolloutsProjection = projection({
  name: 'rollouts',
  tables: { rollouts: ['rollout_id'], rollout_targets: ['rollout_id', 'node_id'] },
  handles: ROLLOUT_EVENT_TYPES,
  evolve(event, db): ProjectionQuery[] {
    const at = event.recordedAt;
    const rolloutId = event.data.rollout_id;
    const rollout = (set: Updateable<RolloutsTable>) =>
      db.updateTable('rollouts').set(set).where('rollout_id', '=', rolloutId);
    const target = (nodeId: string) => db.updateTable('rollout_targets').where('rollout_id', '=', rolloutId).where('node_id', '=', nodeId);
    const endOpenTargets = () =>
      db.updateTable('rollout_targets').set({ state: 'cancelled', updated_at: at }).where('rollout_id', '=', rolloutId).where('state', 'in', literals(['waiting', 'applying'] as const));
    switch (event.type) {
      case 'RolloutCreated': {
        const d = event.data;
        const queries: ProjectionQuery[] = [
          db.insertInto('rollouts').values({
            rollout_id: d.rollout_id,
            kind: d.kind,
            config_version: d.config_version,
            state: 'applying',
            batch_size: d.batch_size,
            batches: Math.max(...d.targets.map((t) => t.batch)) + 1,
            current_batch: 0,
            selector: d.selector ? JSON.stringify(d.selector) : null,
            created_by: event.metadata.actor,
            approval_id: d.approval_id,
            rollback_of: d.rollback_of,
            health_gate: d.health ? JSON.stringify(d.health) : null,
            correlation_id: event.metadata.correlation_id,
            created_at: at,
            updated_at: at,
          }),
        ];
        for (let i = 0; i < d.targets.length; i += CHUNK) {
          const rows = d.targets.slice(i, i + CHUNK).map((t) => ({ rollout_id: d.rollout_id, node_id: t.node_id, batch: t.batch, state: 'waiting' as const, updated_at: at }));
          queries.push(db.insertInto('rollout_targets').values(rows));
        }
        return queries;
      }
      case 'RolloutBatchStarted': {
        const d = event.data;
        return [
          rollout({ current_batch: d.batch, updated_at: at }),
          ...d.intents.map((i) => target(i.node_id).set({ state: 'applying', intent_id: i.intent_id, updated_at: at })),
        ];
      }
      case 'RolloutTargetConverged': {
        const d = event.data;
        return [target(d.node_id).set({ state: 'converged', updated_at: at })];
      }
      case 'RolloutTargetFailed': {
        const d = event.data;
        return [
          target(d.node_id).set({
            state: 'failed',
            failure_class: d.failure_class,
            failure_code: d.code,
            failure_message: d.message,
            correlation_id: d.correlation_id,
            updated_at: at,
          }),
        ];
      }
      case 'RolloutTargetRemoved': {
        const d = event.data;
        return [target(d.node_id).set({ state: 'cancelled', updated_at: at })];
      }
      case 'RolloutPaused': {
        const d = event.data;
        return [rollout({ state: 'paused', paused_reason: d.reason, updated_at: at })];
      }
      case 'RolloutResumed': {
        const d = event.data;
        return [
          // A resumed batch is watched by its gate again, from a new soak.
          rollout({ state: 'applying', paused_reason: null, gate_state: null, gate_until: null, updated_at: at }),
          ...d.intents.map((i) =>
            target(i.node_id).set({ state: 'applying', intent_id: i.intent_id, failure_class: null, failure_code: null, failure_message: null, correlation_id: null, updated_at: at }),
          ),
        ];
      }
      case 'RolloutCancelled':
        return [rollout({ state: 'cancelled', updated_at: at }), endOpenTargets()];
      case 'RolloutConverged':
        return [rollout({ state: 'converged', updated_at: at })];
      case 'RolloutRolledBack': {
        const d = event.data;
        return [rollout({ state: 'rolled_back', rolled_back_by: d.rolled_back_by, updated_at: at }), endOpenTargets()];
      }
      case 'RolloutRestoreOpened': {
        const d = event.data;
        return [target(d.node_id).set({ recovery_phase: 'restoring', recovery_intent_id: d.intent_id, recovery_ref: d.recovery_ref, updated_at: at })];
      }
      case 'RolloutRecoveryCompleted': {
        const d = event.data;
        return [target(d.node_id).set({ recovery_phase: 'complete', recovery_claim: null, recovery_claim_code: null, recovery_claim_at: null, recovery_claim_generation: null, updated_at: at })];
      }
      case 'RolloutRecoveryFailed': {
        const d = event.data;
        // A refusal that deferred to an earlier moved claim leaves that claim, its code and time as they were.
        const claim = d.claim === d.class ? { recovery_claim: d.claim, recovery_claim_code: d.code, recovery_claim_at: at, recovery_claim_generation: d.generation } : {};
        return [target(d.node_id).set({ recovery_phase: 'failed', ...claim, updated_at: at })];
      }
      case 'RolloutRecoveryClaimRetired': {
        const d = event.data;
        const phase = d.evidence === 'failed' ? {} : { recovery_phase: 'complete' as const };
        return [
          target(d.node_id).set({ ...phase, recovery_claim: null, recovery_claim_code: null, recovery_claim_at: null, recovery_claim_generation: null, updated_at: at }),
        ];
      }
      case 'RolloutGateSoaking': {
        const d = event.data;
        return [rollout({ gate_batch: d.batch, gate_state: 'soaking', gate_since: at, gate_until: d.until, gate_evidence: null, gate_action: null, updated_at: at })];
      }
      case 'RolloutGatePassed':
        return [rollout({ gate_state: 'passed', gate_until: null, updated_at: at })];
      case 'RolloutGateFailed':
        return [rollout({ gate_state: 'failed', gate_until: null, gate_evidence: JSON.stringify(event.data.evidence), updated_at: at })];
      case 'RolloutHealthExecuted':
        return [rollout({ gate_action: event.data.outcome, updated_at: at })];
      default:
        return [];
    }
  },
});
