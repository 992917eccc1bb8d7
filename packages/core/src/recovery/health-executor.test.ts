import { given } from '../../../../test/support/decider.ts';
import type { ConfigTarget } from '../config/intents.ts';
import { HealthGate } from '../rollouts/health-gate.ts';
import type { RolloutState, RolloutTarget } from '../rollouts/rollout.ts';
import { decideHealthRollback } from './health-executor.ts';
import { NO_RECOVERY, type TargetRecovery } from './target-recovery.ts';

const configTargets = new Map<string, ConfigTarget>(['edge-1', 'edge-2', 'edge-3'].map((n) => [n, { nodeId: n, configGeneration: 4, live: [], newIntentId: `in-${n}`, newAttemptId: `at-${n}` }]));
const points = new Map(['edge-1', 'edge-2', 'edge-3'].map((n) => [n, { ref: `rp_${n}`, config_version: 'cv-1' }]));
const restoring: TargetRecovery = { phase: 'restoring', claim: null, claimGeneration: null, restore: null, newest: null };
const target = (nodeId: string, batch: number, state: RolloutTarget['state'], recovery: TargetRecovery = NO_RECOVERY): RolloutTarget => ({ nodeId, batch, state, intent: null, recovery });
const rollout = (targets: RolloutTarget[], over: Partial<RolloutState & { gateAction: string | null }> = {}): RolloutState & { gateAction: string | null } => ({
  rolloutId: 'ro-1',
  kind: 'rollout',
  configVersion: 'cv-2',
  state: 'paused',
  batchSize: 2,
  batches: 2,
  currentBatch: 1,
  targets,
  gate: HealthGate.parse({ on_unhealthy: 'rollback' }),
  gateStatus: { batch: 1, state: 'failed', until: null },
  gateAction: null,
  ...over,
});
const opened = (node: string) => [
  { streamId: 'rollout:ro-1', type: 'RolloutRestoreOpened', data: { rollout_id: 'ro-1', node_id: node, intent_id: `in-${node}`, recovery_ref: `rp_${node}`, config_version: 'cv-1' } },
  expect.objectContaining({ streamId: `intent:in-${node}`, type: 'IntentOpened' }),
];

test('L7 a failed gate asking for a rollback restores the failed batch\'s changed targets, and records its terminal', () => {
  const r = rollout([target('edge-1', 0, 'converged'), target('edge-2', 1, 'converged'), target('edge-3', 1, 'converged')]);
  given(r)
    .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set()))
    .then([
      ...opened('edge-2'),
      ...opened('edge-3'),
      { streamId: 'rollout:ro-1', type: 'RolloutHealthExecuted', data: { rollout_id: 'ro-1', batch: 1, outcome: 'opened', nodes: ['edge-2', 'edge-3'], skipped: [], code: null, message: null } },
    ]);
});

test('L8 the executor skips a target already restoring; with every target restoring it opens nothing and says so', () => {
  const some = rollout([target('edge-2', 1, 'converged', restoring), target('edge-3', 1, 'converged')]);
  given(some)
    .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set()))
    .then([
      ...opened('edge-3'),
      { streamId: 'rollout:ro-1', type: 'RolloutHealthExecuted', data: { rollout_id: 'ro-1', batch: 1, outcome: 'opened', nodes: ['edge-3'], skipped: ['edge-2'], code: null, message: null } },
    ]);
  given(rollout([target('edge-2', 1, 'converged', restoring)]))
    .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set()))
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutHealthExecuted',
        data: { rollout_id: 'ro-1', batch: 1, outcome: 'skipped', nodes: [], skipped: ['edge-2'], code: null, message: 'every changed target of the batch is already restoring or held by a recovery claim' },
      },
    ]);
});

test('L8 I12 the executor opens nothing on a node a recovery claim holds: it skips it, as one already restoring', () => {
  const r = rollout([target('edge-2', 1, 'converged'), target('edge-3', 1, 'converged')]);
  given(r)
    .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set(['edge-2'])))
    .then([
      ...opened('edge-3'),
      { streamId: 'rollout:ro-1', type: 'RolloutHealthExecuted', data: { rollout_id: 'ro-1', batch: 1, outcome: 'opened', nodes: ['edge-3'], skipped: ['edge-2'], code: null, message: null } },
    ]);
  given(r)
    .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set(['edge-2', 'edge-3'])))
    .then([expect.objectContaining({ type: 'RolloutHealthExecuted', data: expect.objectContaining({ outcome: 'skipped', nodes: [], skipped: ['edge-2', 'edge-3'] }) })]);
});

test('L9 under the approval gate the executor follows H9: exempt when every node applied its version before, else it pauses and asks for an approval', () => {
  const r = rollout([target('edge-2', 1, 'converged'), target('edge-3', 1, 'converged')]);
  expect(decideHealthRollback(r, points, configTargets, true, new Set(['edge-2', 'edge-3']), new Set()).nodes).toEqual(['edge-2', 'edge-3']);
  given(r)
    .when((s) => decideHealthRollback(s, points, configTargets, true, new Set(['edge-2']), new Set()))
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutHealthExecuted',
        data: { rollout_id: 'ro-1', batch: 1, outcome: 'approval_required', nodes: [], skipped: [], code: 'approval_required', message: expect.stringContaining('needs approval') },
      },
      { streamId: 'rollout:ro-1', type: 'RolloutPaused', data: { rollout_id: 'ro-1', reason: 'approval_required' } },
    ]);
});

test('L9 the executor acts once per failed gate, and only for one that asked for a rollback', () => {
  const targets = [target('edge-2', 1, 'converged')];
  expect(decideHealthRollback(rollout(targets, { gateAction: 'opened' }), points, configTargets, false, new Set(), new Set()).events).toEqual([]);
  expect(decideHealthRollback(rollout(targets, { gate: HealthGate.parse({}) }), points, configTargets, false, new Set(), new Set()).events).toEqual([]);
  expect(decideHealthRollback(rollout(targets, { state: 'applying' }), points, configTargets, false, new Set(), new Set()).events).toEqual([]);
});

test('L9 a rollout cancelled or rolled back before its executor ran records that nothing was restored, once', () => {
  const targets = [target('edge-2', 1, 'converged')];
  for (const state of ['cancelled', 'rolled_back'] as const) {
    given(rollout(targets, { state }))
      .when((s) => decideHealthRollback(s, points, configTargets, false, new Set(), new Set()))
      .then([
        {
          streamId: 'rollout:ro-1',
          type: 'RolloutHealthExecuted',
          data: { rollout_id: 'ro-1', batch: 1, outcome: 'skipped', nodes: [], skipped: [], code: 'rollout_ended', message: `the rollout was ${state} before the health executor ran: nothing was restored` },
        },
      ]);
  }
  expect(decideHealthRollback(rollout(targets, { state: 'cancelled', gateAction: 'skipped' }), points, configTargets, false, new Set(), new Set()).events).toEqual([]);
  expect(decideHealthRollback(rollout(targets, { state: 'converged', gateStatus: { batch: 1, state: 'passed', until: null } }), points, configTargets, false, new Set(), new Set()).events).toEqual([]);
});
