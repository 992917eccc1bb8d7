import type { FleetEvent } from '../events/fleet-event.ts';
import { given } from '../../../../test/support/decider.ts';
import type { ConfigTarget } from '../config/intents.ts';
import type { RolloutState, RolloutTarget } from '../rollouts/rollout.ts';
import { decideInterrupted, decideRecovery, decideRestore } from './recovery.ts';
import { NO_RECOVERY, type TargetRecovery } from './target-recovery.ts';

const configTargets = new Map<string, ConfigTarget>(['edge-1', 'edge-2'].map((n) => [n, { nodeId: n, configGeneration: 4, live: [], newIntentId: `in-${n}`, newAttemptId: `at-${n}` }]));
const target = (nodeId: string, state: RolloutTarget['state'], recovery: TargetRecovery = NO_RECOVERY): RolloutTarget => ({ nodeId, batch: 0, state, intent: null, recovery });
const rollout = (...targets: RolloutTarget[]): RolloutState => ({ rolloutId: 'ro-1', kind: 'rollout', configVersion: 'cv-2', state: 'paused', batchSize: 2, batches: 1, currentBatch: 0, targets, gate: null, gateStatus: null });
const restoring = (attempt: NonNullable<TargetRecovery['restore']>['attempt'], state: 'converging' | 'converged' = 'converging'): TargetRecovery => ({
  phase: 'restoring',
  claim: null,
  claimGeneration: null,
  restore: { intentId: 'in-r', generation: 5, state, attempt },
  newest: null,
});

/** What a restore of edge-1's point rp_at-1 (of cv-1) records: the rollout's restore and its configuration intent. */
const restoreOpenedOnEdge1: FleetEvent[] = [
  { streamId: 'rollout:ro-1', type: 'RolloutRestoreOpened', data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-edge-1', recovery_ref: 'rp_at-1', config_version: 'cv-1' } },
  {
    streamId: 'intent:in-edge-1',
    type: 'IntentOpened',
    data: { intent_id: 'in-edge-1', kind: 'configuration', stream_id: null, node_id: 'edge-1', generation: 5, desired_state: null, action_id: null, config_version: 'cv-1', rollout_id: 'ro-1', recovery_ref: 'rp_at-1' },
  },
];

test('I2 a rollback by scope opens a restore of the recovery point the apply captured; a target without one is refused pre-mutation', () => {
  const points = new Map([['edge-1', { ref: 'rp_at-1', config_version: 'cv-1' }], ['edge-2', null]]);
  given(rollout(target('edge-1', 'failed'), target('edge-2', 'failed')))
    .when((r) => decideRestore(r, { scope: 'failed' }, points, new Map(), new Map(), configTargets))
    .then([
      ...restoreOpenedOnEdge1,
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutRecoveryFailed',
        data: { rollout_id: 'ro-1', node_id: 'edge-2', intent_id: null, class: 'pre_mutation', claim: 'pre_mutation', generation: 4, code: 'no_recovery_point', message: 'the node reported no recovery point captured by this rollout: no restore was sent' },
      },
    ]);
});

test('I2 one restore per target at a time; a scope with no target, or a target outside the rollout, is refused', () => {
  given(rollout(target('edge-1', 'failed', restoring(null))))
    .when((r) => decideRestore(r, { scope: 'failed' }, new Map(), new Map(), new Map(), configTargets))
    .thenFails('rollback_in_progress', { nodes: ['edge-1'] });
  given(rollout(target('edge-1', 'converged'))).when((r) => decideRestore(r, { scope: 'failed' }, new Map(), new Map(), new Map(), configTargets)).thenFails('nothing_to_restore');
  given(rollout(target('edge-1', 'converged'))).when((r) => decideRestore(r, { scope: 'target', node_id: 'edge-9' }, new Map(), new Map(), new Map(), configTargets)).thenFails('unknown_nodes');
});

test('I2 a target whose node is in another live rollout is refused, as a new rollout there would be; its own live rollout does not refuse it', () => {
  const points = new Map([['edge-1', { ref: 'rp_at-1', config_version: 'cv-1' }]]);
  given(rollout(target('edge-1', 'converged')))
    .when((r) => decideRestore(r, { scope: 'all_changed' }, points, new Map([['edge-1', 'ro-2']]), new Map(), configTargets))
    .thenFails('target_in_rollout', { nodes: { 'edge-1': 'ro-2' } });
  given(rollout(target('edge-1', 'failed')))
    .when((r) => decideRestore(r, { scope: 'failed' }, points, new Map([['edge-1', 'ro-1']]), new Map(), configTargets))
    .then([...restoreOpenedOnEdge1]);
});

test('I2 a target of a node retired since (not among the loaded nodes) is out of every scope; named alone, nothing is left to restore', () => {
  const points = new Map([['edge-1', { ref: 'rp_at-1', config_version: 'cv-1' }], ['edge-3', { ref: 'rp_at-3', config_version: 'cv-1' }]]);
  const both = rollout(target('edge-1', 'converged'), target('edge-3', 'converged'));
  given(both)
    .when((r) => decideRestore(r, { scope: 'all_changed' }, points, new Map(), new Map(), configTargets))
    .then([
      ...restoreOpenedOnEdge1,
    ]);
  given(both)
    .when((r) => decideRestore(r, { scope: 'target', node_id: 'edge-3' }, points, new Map(), new Map(), configTargets))
    .thenFails('nothing_to_restore', { scope: 'target', retired: ['edge-3'] });
});

test('I2 G6 a rollback by scope whose scope holds a node another rollout changed since is refused rollout_superseded; a scope without it restores', () => {
  const points = new Map([['edge-1', { ref: 'rp_at-1', config_version: 'cv-1' }], ['edge-2', { ref: 'rp_at-2', config_version: 'cv-1' }]]);
  const converged = { ...rollout(target('edge-1', 'converged'), target('edge-2', 'converged')), state: 'converged' as const };
  // ro-2 set out to change edge-2 after ro-1 (a later rollout, node-level apply, rollback or restore of its own).
  const latest = new Map([['edge-1', 'ro-1'], ['edge-2', 'ro-2']]);
  given(converged)
    .when((r) => decideRestore(r, { scope: 'all_changed' }, points, new Map(), latest, configTargets))
    .thenFails('rollout_superseded', { nodes: { 'edge-2': 'ro-2' }, rollouts: ['ro-2'] });
  given(converged)
    .when((r) => decideRestore(r, { scope: 'target', node_id: 'edge-1' }, points, new Map(), latest, configTargets))
    .then([...restoreOpenedOnEdge1]);
});

test('I2 G2 a cancelled rollout restores the targets it changed by scope; a target cancelled with it is out of scope; a rolled-back one refuses', () => {
  const points = new Map([['edge-1', { ref: 'rp_at-1', config_version: 'cv-1' }], ['edge-2', { ref: 'rp_at-2', config_version: 'cv-1' }]]);
  // edge-1 converged before the cancel; edge-2 was applying and was cancelled with the rollout (its claim would hold nothing, I6).
  const cancelled = { ...rollout(target('edge-1', 'converged'), target('edge-2', 'cancelled')), state: 'cancelled' as const };
  given(cancelled)
    .when((r) => decideRestore(r, { scope: 'all_changed' }, points, new Map(), new Map(), configTargets))
    .then([...restoreOpenedOnEdge1]);
  given(cancelled)
    .when((r) => decideRestore(r, { scope: 'target', node_id: 'edge-2' }, points, new Map(), new Map(), configTargets))
    .thenFails('nothing_to_restore', { scope: 'target', cancelled: ['edge-2'] });
  given({ ...cancelled, state: 'rolled_back' as const })
    .when((r) => decideRestore(r, { scope: 'all_changed' }, points, new Map(), new Map(), configTargets))
    .thenFails('rollout_terminal', { state: 'rolled_back' });
});

test('I3 I9 a restore ends completed on success, post-mutation when its answer never came, and stays in flight when it did not run', () => {
  const attempt = (state: 'succeeded' | 'failed' | 'ambiguous', code: string | null = null) => ({ state, code, message: null, mutation: null });
  given(rollout(target('edge-1', 'failed', restoring(attempt('succeeded')))))
    .when(decideRecovery)
    .then([{ streamId: 'rollout:ro-1', type: 'RolloutRecoveryCompleted', data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-r' } }]);
  given(rollout(target('edge-1', 'failed', restoring(attempt('ambiguous')))))
    .when(decideRecovery)
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutRecoveryFailed',
        data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-r', class: 'post_mutation', claim: 'post_mutation', generation: 5, code: 'lease_expired', message: 'the restore was sent and its answer never came' },
      },
    ]);
  given(rollout(target('edge-1', 'failed', restoring(attempt('failed', 'busy'))))).when(decideRecovery).then([]);
});

test('I3 C5 a restore blocked node_ahead_of_log, decided before its node reported a version the log does not know, ends pre-mutation: it was not sent', () => {
  const blocked = (attempt: NonNullable<TargetRecovery['restore']>['attempt']): TargetRecovery => ({ ...restoring(attempt), restore: { intentId: 'in-r', generation: 5, state: 'blocked', attempt } });
  const notSent = {
    streamId: 'rollout:ro-1',
    type: 'RolloutRecoveryFailed',
    data: {
      rollout_id: 'ro-1',
      node_id: 'edge-1',
      intent_id: 'in-r',
      class: 'pre_mutation',
      claim: 'pre_mutation',
      generation: 5,
      code: 'node_ahead_of_log',
      message: 'the restore was not sent: its node reports a configuration version the log does not know',
    },
  } as const;
  // Never queued, or blocked when it was to run again after a run that did not happen (its node busy).
  given(rollout(target('edge-1', 'failed', blocked(null)))).when(decideRecovery).then([notSent]);
  given(rollout(target('edge-1', 'failed', blocked({ state: 'failed', code: 'busy', message: null, mutation: null })))).when(decideRecovery).then([notSent]);
});

test('I7 a claim is retired by success evidence of a newer configuration generation', () => {
  const claimed: TargetRecovery = {
    phase: 'failed',
    claim: 'post_mutation',
    claimGeneration: 5,
    restore: { intentId: 'in-r', generation: 5, state: 'blocked', attempt: null },
    newest: { intentId: 'in-6', generation: 6, state: 'converged', attempt: null },
  };
  given(rollout(target('edge-1', 'failed', claimed)))
    .when(decideRecovery)
    .then([{ streamId: 'rollout:ro-1', type: 'RolloutRecoveryClaimRetired', data: { rollout_id: 'ro-1', node_id: 'edge-1', evidence: 'converged', intent_id: 'in-6' } }]);
});

test('I10 at Hub start, a restore in flight whose attempt went ambiguous is interrupted: it may have moved the target', () => {
  given(rollout(target('edge-1', 'failed', restoring({ state: 'ambiguous', code: null, message: null, mutation: null })), target('edge-2', 'failed', restoring(null))))
    .when(decideInterrupted)
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutRecoveryFailed',
        data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-r', class: 'unknown', claim: 'unknown', generation: 5, code: 'interrupted', message: 'the restore was in flight when the Hub stopped' },
      },
    ]);
});
