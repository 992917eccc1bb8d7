import { awaitsHealthExecutor, decideHealthRollback, fleetEvent, ok, rolloutStream, type ConfigTarget, type RecoveryPoint, type RolloutState } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';
import { loadNodeHolds } from '../reconcile/holds.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { loadConfigTargets, loadRollout, supersededRollouts } from './load.ts';
import { rolloutJob } from './queues.ts';
import { capturedPoints } from './rollout-action.ts';

type Awaiting = RolloutState & { gateAction: string | null };

interface Loaded {
  rollout: Awaiting | null;
  points: Map<string, RecoveryPoint | null>;
  configTargets: Map<string, ConfigTarget>;
  appliedBefore: Set<string>;
  /** The batch's nodes a recovery claim holds (I12). */
  held: Set<string>;
}

async function loadAwaiting(trx: Kysely<Tables>, rolloutId: string): Promise<Awaiting | null> {
  const rollout = await loadRollout(trx, rolloutId, true);
  if (!rollout) return null;
  const row = await trx.selectFrom('rollouts').select('gate_action').where('rollout_id', '=', rolloutId).executeTakeFirstOrThrow();
  return { ...rollout, gateAction: row.gate_action };
}

/**
 * The health executor's run (SPEC L7-L9): restores the failed batch's changed targets, run as a command of its
 * own, whose actor is the executor and whose causation is the gate's failure. Safe to run twice: once it
 * recorded its terminal, the gate no longer awaits it.
 */
export function healthRollback(rolloutId: string, approvalRequired: boolean): Command<Loaded, { nodes: string[] }> {
  return {
    name: 'HealthRollback',
    async load(trx) {
      const rollout = await loadAwaiting(trx, rolloutId);
      const none: Loaded = { rollout, points: new Map(), configTargets: new Map(), appliedBefore: new Set(), held: new Set() };
      if (!rollout || !awaitsHealthExecutor(rollout)) return none;
      const nodes = rollout.targets.filter((t) => t.batch === rollout.gateStatus!.batch).map((t) => t.nodeId);
      const configTargets = await loadConfigTargets(trx, nodes);
      const points = await capturedPoints(trx, rolloutId, nodes);
      const holds = await loadNodeHolds(trx, nodes);
      const held = new Set(nodes.filter((n) => holds.get(n)));
      return { rollout, points, configTargets, appliedBefore: approvalRequired ? await appliedTheirPoints(trx, points) : new Set(), held };
    },
    decide({ rollout, points, configTargets, appliedBefore, held }) {
      if (!rollout) return ok({ events: [], result: { nodes: [] } });
      const { events, nodes } = decideHealthRollback(rollout, points, configTargets, approvalRequired, appliedBefore, held);
      const jobs = nodes.length ? [...nodes.map((n) => reconcileJob(n)), rolloutJob(rolloutId), ...supersededRollouts(configTargets, rolloutId)] : [];
      return ok({ events, jobs, result: { nodes } });
    },
  };
}

/** SPEC H9 for a restore: the nodes whose recovery point holds a version a configuration intent converged to there before. */
async function appliedTheirPoints(trx: Kysely<Tables>, points: ReadonlyMap<string, RecoveryPoint | null>): Promise<Set<string>> {
  const pairs = [...points].flatMap(([node, p]) => (p ? [{ node, version: p.config_version }] : []));
  if (pairs.length === 0) return new Set();
  const { rows } = await sql<{ node_id: string }>`
    SELECT DISTINCT i.node_id FROM intents i
    JOIN jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS p(node text, version text) ON p.node = i.node_id AND p.version = i.config_version
    WHERE i.kind = 'configuration' AND i.state = 'converged'`.execute(trx);
  return new Set(rows.map((r) => r.node_id));
}

/** Every exit records a terminal (SPEC L9): a run that failed before deciding records `failed`, with why. */
export function healthRollbackFailed(rolloutId: string, message: string): Command<Awaiting | null, null> {
  return {
    name: 'HealthRollbackFailed',
    load: (trx) => loadAwaiting(trx, rolloutId),
    decide(rollout) {
      if (!rollout || !awaitsHealthExecutor(rollout)) return ok({ events: [], result: null });
      const data = { rollout_id: rolloutId, batch: rollout.gateStatus!.batch, outcome: 'failed' as const, nodes: [], skipped: [], code: 'executor_failed', message };
      return ok({ events: [fleetEvent(rolloutStream(rolloutId), 'RolloutHealthExecuted', data)], result: null });
    },
  };
}
