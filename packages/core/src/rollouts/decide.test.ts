import { given } from '../../../../test/support/decider.ts';
import type { ConfigTarget } from '../config/intents.ts';
import type { FleetEvent } from '../events/fleet-event.ts';
import type { LiveIntent } from '../reconcile/desired.ts';
import { NO_RECOVERY } from '../recovery/target-recovery.ts';
import { decideCreateRollout, decideProgress, decideRollbackTo, decideRolloutAction, rollbackNodes, type NewRollout, type RolloutState, type RolloutTarget } from './rollout.ts';

const now = new Date('2026-12-01T10:00:00.000Z');
const configTarget = (nodeId: string, live: LiveIntent[] = []): ConfigTarget => ({ nodeId, configGeneration: 2, live, newIntentId: `in-${nodeId}`, newAttemptId: `at-${nodeId}` });
const targets = new Map(['edge-1', 'edge-2', 'edge-3'].map((n) => [n, configTarget(n)]));
const input: NewRollout = { rolloutId: 'ro-1', kind: 'rollout', configVersion: 'cv-2', batchSize: 2, selector: null, nodes: ['edge-1', 'edge-2', 'edge-3'], approvalId: null, rollbackOf: null };
const configIntent = (nodeId: string, rolloutId = 'ro-1', configVersion = 'cv-2', overrideHold = false): FleetEvent => ({
  streamId: `intent:in-${nodeId}`,
  type: 'IntentOpened',
  data: {
    intent_id: `in-${nodeId}`,
    kind: 'configuration',
    stream_id: null,
    node_id: nodeId,
    generation: 3,
    desired_state: null,
    action_id: null,
    config_version: configVersion,
    rollout_id: rolloutId,
    recovery_ref: null,
    ...(overrideHold && { override_hold: true }),
  },
});
const target = (nodeId: string, batch: number, state: RolloutTarget['state'], intentState: 'converging' | 'converged' | 'blocked' | null = null): RolloutTarget => ({
  nodeId,
  batch,
  state,
  intent: intentState && { intentId: `in-${nodeId}`, state: intentState, failureClass: intentState === 'blocked' ? 'permanent' : null, code: intentState === 'blocked' ? 'invalid_config' : null, message: null, correlationId: 'c-1' },
  recovery: NO_RECOVERY,
});
const liveIntent = (intentId: string, nodeId: string): LiveIntent => ({
  intentId,
  kind: 'configuration',
  streamId: null,
  nodeId,
  generation: 2,
  desiredState: null,
  actionId: null,
  configVersion: 'cv-2',
  rolloutId: 'ro-1',
  recoveryRef: null,
  state: 'pending',
  retryCount: 0,
  nextRetryAt: null,
  awaiting: null,
  openedAt: now,
  overridesHold: false,
  queuedAttempts: [],
});
const rollout: RolloutState = {
  rolloutId: 'ro-1',
  kind: 'rollout',
  configVersion: 'cv-2',
  state: 'applying',
  batchSize: 2,
  batches: 2,
  currentBatch: 0,
  targets: [target('edge-1', 0, 'applying', 'converging'), target('edge-2', 0, 'applying', 'converging'), target('edge-3', 1, 'waiting')],
  gate: null,
  gateStatus: null,
};

test('G3 a rollout is created on its pinned nodes in batches and starts its first batch with configuration intents', () => {
  given(targets)
    .when((t) => decideCreateRollout(input, new Map(), t))
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutCreated',
        data: { rollout_id: 'ro-1', kind: 'rollout', config_version: 'cv-2', batch_size: 2, selector: null, targets: [{ node_id: 'edge-1', batch: 0 }, { node_id: 'edge-2', batch: 0 }, { node_id: 'edge-3', batch: 1 }], approval_id: null, rollback_of: null },
      },
      { streamId: 'rollout:ro-1', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-1', batch: 0, intents: [{ node_id: 'edge-1', intent_id: 'in-edge-1' }, { node_id: 'edge-2', intent_id: 'in-edge-2' }] } },
      configIntent('edge-1'),
      configIntent('edge-2'),
    ]);
});

test('F6 G3 an empty resolution creates nothing; a node in another live rollout is refused', () => {
  given(targets).when((t) => decideCreateRollout({ ...input, nodes: [] }, new Map(), t)).thenFails('no_matching_nodes');
  given(targets).when((t) => decideCreateRollout(input, new Map([['edge-2', 'ro-0']]), t)).thenFails('target_in_rollout', { nodes: { 'edge-2': 'ro-0' } });
});

test('G1 once every target of a batch converged, the next batch starts; after the last, the rollout converges', () => {
  const converged = { ...rollout, targets: [target('edge-1', 0, 'applying', 'converged'), target('edge-2', 0, 'converged', 'converged'), target('edge-3', 1, 'waiting')] };
  given(converged)
    .when((r) => decideProgress(r, targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutTargetConverged', data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-edge-1' } },
      { streamId: 'rollout:ro-1', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-1', batch: 1, intents: [{ node_id: 'edge-3', intent_id: 'in-edge-3' }] } },
      configIntent('edge-3'),
    ]);
  given({ ...converged, currentBatch: 1, targets: [target('edge-3', 1, 'applying', 'converged')] })
    .when((r) => decideProgress(r, targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutTargetConverged', data: { rollout_id: 'ro-1', node_id: 'edge-3', intent_id: 'in-edge-3' } },
      { streamId: 'rollout:ro-1', type: 'RolloutConverged', data: { rollout_id: 'ro-1' } },
    ]);
});

test('G2 a blocked target fails and pauses the rollout; a batch still converging waits', () => {
  given({ ...rollout, targets: [target('edge-1', 0, 'applying', 'blocked'), ...rollout.targets.slice(1)] })
    .when((r) => decideProgress(r, targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutTargetFailed', data: { rollout_id: 'ro-1', node_id: 'edge-1', intent_id: 'in-edge-1', failure_class: 'permanent', code: 'invalid_config', message: null, correlation_id: 'c-1' } },
      { streamId: 'rollout:ro-1', type: 'RolloutPaused', data: { rollout_id: 'ro-1', reason: 'target_failed' } },
    ]);
  given(rollout).when((r) => decideProgress(r, targets)).then([]);
});

test('G2 an operator pauses an applying rollout, resumes a paused one with new intents for its failed targets, cancels a live one', () => {
  given(rollout).when((r) => decideRolloutAction(r, { action: 'pause' }, [], targets)).then([{ streamId: 'rollout:ro-1', type: 'RolloutPaused', data: { rollout_id: 'ro-1', reason: 'operator' } }]);
  const paused = { ...rollout, state: 'paused' as const, targets: [target('edge-1', 0, 'failed', 'blocked'), ...rollout.targets.slice(1)] };
  given(paused)
    .when((r) => decideRolloutAction(r, { action: 'resume' }, [], targets))
    .then([{ streamId: 'rollout:ro-1', type: 'RolloutResumed', data: { rollout_id: 'ro-1', intents: [{ node_id: 'edge-1', intent_id: 'in-edge-1' }] } }, configIntent('edge-1')]);
  given(rollout).when((r) => decideRolloutAction(r, { action: 'resume' }, [], targets)).thenFails('invalid_transition');
  given(rollout)
    .when((r) => decideRolloutAction(r, { action: 'cancel' }, [liveIntent('in-edge-1', 'edge-1')], targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutCancelled', data: { rollout_id: 'ro-1' } },
      { streamId: 'intent:in-edge-1', type: 'IntentSuperseded', data: { intent_id: 'in-edge-1', superseded_by: null, withdrawn_attempts: [] } },
    ]);
  given({ ...rollout, state: 'converged' as const }).when((r) => decideRolloutAction(r, { action: 'cancel' }, [], targets)).thenFails('rollout_terminal');
});

test('G6 I13 a rollback is a new rollout on the targets it changed, its intents going through a recovery hold; the old one is marked rolled back and its other live intents superseded', () => {
  const live = liveIntent('in-old-3', 'edge-3');
  const back: NewRollout = { ...input, rolloutId: 'ro-2', kind: 'rollback', configVersion: 'cv-1' };
  const lastBatch = { ...rollout, currentBatch: 1, targets: [target('edge-1', 0, 'converged', 'converged'), target('edge-2', 0, 'converged', 'converged'), target('edge-3', 1, 'applying', 'converging')] };
  given(lastBatch)
    .when((r) => decideRollbackTo(r, back, [live], new Map([['edge-1', 'ro-1']]), new Map(), targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutRolledBack', data: { rollout_id: 'ro-1', rolled_back_by: 'ro-2', config_version: 'cv-1' } },
      { streamId: 'intent:in-old-3', type: 'IntentSuperseded', data: { intent_id: 'in-old-3', superseded_by: null, withdrawn_attempts: [] } },
      {
        streamId: 'rollout:ro-2',
        type: 'RolloutCreated',
        data: { rollout_id: 'ro-2', kind: 'rollback', config_version: 'cv-1', batch_size: 2, selector: null, targets: [{ node_id: 'edge-1', batch: 0 }, { node_id: 'edge-2', batch: 0 }, { node_id: 'edge-3', batch: 1 }], approval_id: null, rollback_of: 'ro-1' },
      },
      { streamId: 'rollout:ro-2', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-2', batch: 0, intents: [{ node_id: 'edge-1', intent_id: 'in-edge-1' }, { node_id: 'edge-2', intent_id: 'in-edge-2' }] } },
      configIntent('edge-1', 'ro-2', 'cv-1', true),
      configIntent('edge-2', 'ro-2', 'cv-1', true),
    ]);
  given({ ...rollout, state: 'rolled_back' as const }).when((r) => decideRollbackTo(r, back, [], new Map(), new Map(), targets)).thenFails('rollout_terminal');
});

test('G6 a rollback to a version goes only to the targets the rollout changed: a target whose batch never started is not applied again', () => {
  // Stopped after its first batch of two: edge-3 never moved, and the rollback leaves it as it is.
  const stopped = { ...rollout, state: 'paused' as const, targets: [target('edge-1', 0, 'converged', 'converged'), target('edge-2', 0, 'failed', 'blocked'), target('edge-3', 1, 'waiting')] };
  const back: NewRollout = { ...input, rolloutId: 'ro-2', kind: 'rollback', configVersion: 'cv-1', batchSize: 1 };
  given(stopped)
    .when((r) => decideRollbackTo(r, back, [], new Map(), new Map(), targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutRolledBack', data: { rollout_id: 'ro-1', rolled_back_by: 'ro-2', config_version: 'cv-1' } },
      {
        streamId: 'rollout:ro-2',
        type: 'RolloutCreated',
        data: { rollout_id: 'ro-2', kind: 'rollback', config_version: 'cv-1', batch_size: 1, selector: null, targets: [{ node_id: 'edge-1', batch: 0 }, { node_id: 'edge-2', batch: 1 }], approval_id: null, rollback_of: 'ro-1' },
      },
      { streamId: 'rollout:ro-2', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-2', batch: 0, intents: [{ node_id: 'edge-1', intent_id: 'in-edge-1' }] } },
      configIntent('edge-1', 'ro-2', 'cv-1', true),
    ]);
  expect(rollbackNodes(stopped)).toEqual(['edge-1', 'edge-2']);
  // A target taken out with its retired node (cancelled) is not rolled back either.
  expect(rollbackNodes({ ...stopped, targets: [...stopped.targets.slice(0, 1), target('edge-2', 0, 'cancelled')] })).toEqual(['edge-1']);
});

test('G2 G6 a cancelled rollout is rolled back to a version on the targets it changed or was applying, as a converged one is; a rolled-back one refuses', () => {
  // Cancelled during its second batch: edge-1 converged; edge-2, applying at the cancel (its apply may have
  // run), and edge-3, whose batch had not started, are cancelled.
  const cancelled = {
    ...rollout,
    state: 'cancelled' as const,
    currentBatch: 1,
    targets: [target('edge-1', 0, 'converged', 'converged'), target('edge-2', 1, 'cancelled', 'converging'), target('edge-3', 2, 'cancelled')],
  };
  const back: NewRollout = { ...input, rolloutId: 'ro-2', kind: 'rollback', configVersion: 'cv-1' };
  given(cancelled)
    .when((r) => decideRollbackTo(r, back, [], new Map(), new Map([['edge-1', 'ro-1'], ['edge-2', 'ro-1']]), targets))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutRolledBack', data: { rollout_id: 'ro-1', rolled_back_by: 'ro-2', config_version: 'cv-1' } },
      {
        streamId: 'rollout:ro-2',
        type: 'RolloutCreated',
        data: {
          rollout_id: 'ro-2',
          kind: 'rollback',
          config_version: 'cv-1',
          batch_size: 2,
          selector: null,
          targets: [
            { node_id: 'edge-1', batch: 0 },
            { node_id: 'edge-2', batch: 0 },
          ],
          approval_id: null,
          rollback_of: 'ro-1',
        },
      },
      {
        streamId: 'rollout:ro-2',
        type: 'RolloutBatchStarted',
        data: {
          rollout_id: 'ro-2',
          batch: 0,
          intents: [
            { node_id: 'edge-1', intent_id: 'in-edge-1' },
            { node_id: 'edge-2', intent_id: 'in-edge-2' },
          ],
        },
      },
      configIntent('edge-1', 'ro-2', 'cv-1', true),
      configIntent('edge-2', 'ro-2', 'cv-1', true),
    ]);
  given({ ...cancelled, state: 'rolled_back' as const }).when((r) => decideRollbackTo(r, back, [], new Map(), new Map(), targets)).thenFails('rollout_terminal', { state: 'rolled_back' });
});

test('G6 a rollback to a version of a rollout another rollout changed a node of since is refused rollout_superseded, naming it', () => {
  const converged = { ...rollout, state: 'converged' as const, targets: [target('edge-1', 0, 'converged', 'converged'), target('edge-2', 0, 'converged', 'converged')] };
  const back: NewRollout = { ...input, rolloutId: 'ro-3', kind: 'rollback', configVersion: 'cv-1' };
  // ro-2 (a later rollout, a node-level apply or a rollback) set out to change edge-2 after ro-1.
  given(converged)
    .when((r) => decideRollbackTo(r, back, [], new Map(), new Map([['edge-1', 'ro-1'], ['edge-2', 'ro-2']]), targets))
    .thenFails('rollout_superseded', { nodes: { 'edge-2': 'ro-2' }, rollouts: ['ro-2'] });
  // Its own restores keep it the latest change: the rollback goes on.
  expect(decideRollbackTo(converged, back, [], new Map(), new Map([['edge-1', 'ro-1'], ['edge-2', 'ro-1']]), targets).ok).toBe(true);
});

test('K2 a target removed with its retired node (cancelled) settles its batch, and a later batch starts without it', () => {
  const removed = { ...rollout, targets: [target('edge-1', 0, 'converged', 'converged'), target('edge-2', 0, 'cancelled', 'converging'), target('edge-3', 1, 'cancelled')] };
  given(removed)
    .when((r) => decideProgress(r, new Map()))
    .then([{ streamId: 'rollout:ro-1', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-1', batch: 1, intents: [] } }]);
  given({ ...removed, currentBatch: 1 })
    .when((r) => decideProgress(r, new Map()))
    .then([{ streamId: 'rollout:ro-1', type: 'RolloutConverged', data: { rollout_id: 'ro-1' } }]);
});
