import {
  checkApprovalGate,
  decideRestore,
  decideRollbackTo,
  decideRolloutAction,
  fail,
  ok,
  reappliedOnResume,
  refusesRollback,
  refusesRollbackTo,
  rollbackNodes,
  recoveryRef,
  type ConfigTarget,
  type LiveIntent,
  type RecoveryPoint,
  type RestoreScope,
  type RolloutAction,
  type RolloutState,
} from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { Tables } from '../database/tables.ts';
import { newId } from '../ids.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { latestChanges, liveConfigIntents, loadConfigTargets, loadRollout, lockTargetNodes, nodesThatApplied, supersededRollouts } from './load.ts';
import { rolloutJob } from './queues.ts';

/** POST /rollouts/{id}/actions: pause, resume, cancel, roll back to an earlier version, or restore recovery points by scope. */
export type RolloutActionRequest = RolloutAction | { action: 'rollback'; config_version: string } | ({ action: 'rollback' } & RestoreScope);

interface Loaded {
  rollout: RolloutState | null;
  live: LiveIntent[];
  configTargets: Map<string, ConfigTarget>;
  versionExists: boolean;
  busy: Map<string, string>;
  /** The rollout that last set out to change each of a rollback's nodes (read under their lock). */
  latest: Map<string, string>;
  appliedBefore: Set<string>;
  points: Map<string, RecoveryPoint | null>;
  /** A rollback's nodes: the nodes of the targets it may have changed still in the fleet (not retired since), in target order. */
  nodes: string[];
  /** Of a rollback's nodes, those retired between that read and their lock. */
  retired: string[];
}

export function rolloutAction(
  rolloutId: string,
  request: RolloutActionRequest,
  approvalRequired: boolean,
): Command<Loaded, { rolloutId: string }> {
  const rollbackId = newId('ro');
  return {
    name: 'RolloutAction',
    async load(trx) {
      const rollout = await loadRollout(trx, rolloutId, true);
      const empty: Loaded = { rollout, live: [], configTargets: new Map(), versionExists: false, busy: new Map(), latest: new Map(), appliedBefore: new Set(), points: new Map(), nodes: [], retired: [] };
      if (!rollout) return empty;
      // Nodes are locked before intents, as every command does.
      const live = () => liveConfigIntents(trx, (q) => q.where('rollout_id', '=', rolloutId));
      switch (request.action) {
        case 'pause':
          return empty;
        case 'cancel':
          return { ...empty, live: await live() };
        case 'resume': {
          return { ...empty, configTargets: await loadConfigTargets(trx, reappliedOnResume(rollout)) };
        }
        case 'rollback': {
          if (!('config_version' in request)) {
            const targets = request.scope === 'target' ? [request.node_id] : rollout.targets.map((t) => t.nodeId);
            // A retired node has nothing left to restore: only the nodes still in the fleet are loaded.
            const nodes = await inFleet(trx, targets);
            const { busy } = await lockTargetNodes(trx, nodes);
            return { ...empty, busy, latest: await latestChanges(trx, nodes), configTargets: await loadConfigTargets(trx, nodes), points: await capturedPoints(trx, rolloutId, nodes) };
          }
          // Only the targets the rollout may have changed (a batch never started moved nothing), and of those
          // the nodes still in the fleet: a node retired after its target settled is gone for good.
          const nodes = await inFleet(trx, rollbackNodes(rollout));
          const version = await trx.selectFrom('config_versions').select('config_version').where('config_version', '=', request.config_version).executeTakeFirst();
          const { busy, retired } = await lockTargetNodes(trx, nodes);
          return {
            ...empty,
            live: await live(),
            versionExists: !!version,
            configTargets: await loadConfigTargets(trx, nodes.slice(0, rollout.batchSize)),
            busy,
            latest: await latestChanges(trx, nodes),
            appliedBefore: approvalRequired ? await nodesThatApplied(trx, request.config_version, nodes) : new Set(),
            nodes,
            retired,
          };
        }
      }
    },
    decide({ rollout, live, configTargets, versionExists, busy, latest, appliedBefore, points, nodes, retired }) {
      if (!rollout) return fail('rollout_not_found', `no rollout ${rolloutId}`, { rollout_id: rolloutId });
      if (request.action === 'rollback' && !('config_version' in request)) {
        const decided = decideRestore(rollout, request, points, busy, latest, configTargets);
        if (!decided.ok) return decided;
        const jobs = [...decided.value.nodes.map((n) => reconcileJob(n)), rolloutJob(rolloutId), ...supersededRollouts(configTargets, rolloutId)];
        return ok({ events: decided.value.events, jobs, result: { rolloutId } });
      }
      if (request.action !== 'rollback') {
        const decided = decideRolloutAction(rollout, request, live, configTargets);
        if (!decided.ok) return decided;
        const jobs = [
          ...decided.value.nodes.map((n) => reconcileJob(n)),
          ...(request.action === 'resume' ? [rolloutJob(rolloutId), ...supersededRollouts(configTargets, rolloutId)] : []),
          // A cancel withdraws restores not yet sent: the pass records their terminals.
          ...(request.action === 'cancel' ? [rolloutJob(rolloutId)] : []),
        ];
        return ok({ events: decided.value.events, jobs, result: { rolloutId } });
      }
      if (!versionExists) return fail('config_version_not_found', `configuration version ${request.config_version} does not exist`, { config_version: request.config_version });
      const terminal = refusesRollback(rollout);
      if (!terminal.ok) return terminal;
      if (retired.length > 0) return fail('unknown_nodes', `node ${retired.join(', ')} was retired while the rollback was decided: send it again`, { nodes: retired });
      if (nodes.length === 0) return fail('no_matching_nodes', `no target of rollout ${rolloutId} is left to roll back: each it changed was cancelled or its node retired`, { rollout_id: rolloutId });
      // Refused before the gate: a rollback that would be refused (one that would undo a later change) is not one to approve.
      const refused = refusesRollbackTo(rollout, nodes, latest);
      if (!refused.ok) return refused;
      const gate = checkApprovalGate(approvalRequired, 'rollback', nodes, appliedBefore);
      if (!gate.ok) return gate;
      const decided = decideRollbackTo(
        rollout,
        { rolloutId: rollbackId, kind: 'rollback', configVersion: request.config_version, batchSize: rollout.batchSize, selector: null, nodes, approvalId: null, rollbackOf: rolloutId },
        live,
        busy,
        latest,
        configTargets,
      );
      if (!decided.ok) return decided;
      const jobs = [...decided.value.nodes.map((n) => reconcileJob(n)), ...supersededRollouts(configTargets, rollbackId)];
      return ok({ events: decided.value.events, jobs, result: { rolloutId: rollbackId } });
    },
  };
}

/** Those of these nodes still in the fleet (a retired node's row has left `nodes`), in the order given. */
async function inFleet(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<string[]> {
  const rows = await trx.selectFrom('nodes').select('node_id').where(sql<boolean>`node_id = any(${[...nodeIds]})`).execute();
  const present = new Set(rows.map((r) => r.node_id));
  return nodeIds.filter((n) => present.has(n));
}

/**
 * The recovery point this rollout's applies captured on each node before they changed anything: every apply
 * captures one named after its attempt (`recoveryRef`), so it is the point of the first sent apply not proven
 * to have changed nothing (a pre-mutation failure, such as `capture_failed`, leaves the capture to the next).
 * It counts only once the node has reported holding it; a later apply's point may hold what an earlier one
 * changed, so it never stands in for it.
 */
export async function capturedPoints(trx: Kysely<Tables>, rolloutId: string, nodes: readonly string[]): Promise<Map<string, RecoveryPoint | null>> {
  const first = await trx
    .selectFrom('attempts as a')
    .innerJoin('intents as i', 'i.intent_id', 'a.intent_id')
    .select(['a.node_id', 'a.attempt_id'])
    .distinctOn('a.node_id')
    .where('i.rollout_id', '=', rolloutId)
    .where('a.operation', '=', 'config_apply')
    .where('a.dispatched_at', 'is not', null)
    .where((eb) => eb.or([eb('a.state', '<>', 'failed'), eb('a.mutation', 'is', null), eb('a.mutation', '<>', 'pre_mutation')]))
    .where(sql<boolean>`a.node_id = any(${[...nodes]})`)
    .orderBy('a.node_id')
    .orderBy('a.dispatched_at')
    .execute();
  const reported = await trx.selectFrom('nodes').select(['node_id', 'recovery_points']).where(sql<boolean>`node_id = any(${[...nodes]})`).execute();
  return new Map(
    nodes.map((n) => {
      const attempt = first.find((f) => f.node_id === n);
      const points = reported.find((r) => r.node_id === n)?.recovery_points ?? [];
      return [n, attempt ? (points.find((p) => p.ref === recoveryRef(attempt.attempt_id)) ?? null) : null] as const;
    }),
  );
}
