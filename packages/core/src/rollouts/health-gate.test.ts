import { given } from '../../../../test/support/decider.ts';
import { NO_RECOVERY } from '../recovery/target-recovery.ts';
import { GATE_CHECK_MS, HealthGate, type TargetObservation } from './health-gate.ts';
import { decideProgress, type RolloutState, type RolloutTarget } from './rollout.ts';

const now = new Date('2026-12-01T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const gate = HealthGate.parse({ soak_ms: 60_000 });
const converged = (nodeId: string, batch = 0): RolloutTarget => ({
  nodeId,
  batch,
  state: 'converged',
  intent: { intentId: `in-${nodeId}`, state: 'converged', failureClass: null, code: null, message: null, correlationId: 'c-1' },
  recovery: NO_RECOVERY,
});
const waiting = (nodeId: string, batch: number): RolloutTarget => ({ nodeId, batch, state: 'waiting', intent: null, recovery: NO_RECOVERY });
const rollout = (over: Partial<RolloutState> = {}): RolloutState => ({
  rolloutId: 'ro-1',
  kind: 'rollout',
  configVersion: 'cv-2',
  state: 'applying',
  batchSize: 2,
  batches: 2,
  currentBatch: 0,
  targets: [converged('edge-1'), converged('edge-2'), waiting('edge-3', 1)],
  gate,
  gateStatus: null,
  ...over,
});
const soaking = { batch: 0, state: 'soaking' as const, until: later(60_000).toISOString() };
const healthy = (nodeId: string): TargetObservation => ({
  nodeId,
  liveness: 'online',
  lastSeenAt: now.toISOString(),
  appliedVersion: 'cv-2',
  reportedAt: '2026-12-01T09:59:00.000Z',
  streams: [{ streamId: 'ingest', observed: { state: 'running', error: null, health: { status: 'running', exit_code: null, restarts: 0 }, reportedAt: '2026-12-01T09:59:00.000Z' } }],
});
const crashed = (nodeId: string): TargetObservation => ({
  ...healthy(nodeId),
  streams: [{ streamId: 'ingest', observed: { state: 'failed', error: 'exited with code 3', health: { status: 'exited', exit_code: 3, restarts: 0 }, reportedAt: '2026-12-01T10:00:30.000Z' } }],
});
const configTargets = new Map(['edge-3'].map((n) => [n, { nodeId: n, configGeneration: 2, live: [], newIntentId: `in-${n}`, newAttemptId: `at-${n}` }]));

test('L3 a gate has documented defaults: a soak of 60 s, no unhealthy target allowed, pause', () => {
  expect(HealthGate.parse({})).toEqual({ soak_ms: 60_000, max_unhealthy_targets: 0, on_unhealthy: 'pause' });
  expect(HealthGate.safeParse({ soak_ms: -1 }).success).toBe(false);
  expect(HealthGate.safeParse({ on_unhealthy: 'ignore' }).success).toBe(false);
});

test('L3 a converged batch with a gate starts its soak, its end written into the event, instead of passing', () => {
  const decided = decideProgress(rollout(), configTargets, { now, observations: [healthy('edge-1'), healthy('edge-2')] });
  expect(decided.events).toEqual([{ streamId: 'rollout:ro-1', type: 'RolloutGateSoaking', data: { rollout_id: 'ro-1', batch: 0, until: later(60_000).toISOString() } }]);
  expect(decided.nodes).toEqual([]);
  expect(decided.wakeAt).toEqual(later(GATE_CHECK_MS));
});

test('L3 a batch still soaking and healthy waits, and asks to be looked at again', () => {
  const decided = decideProgress(rollout({ gateStatus: soaking }), configTargets, { now: later(30_000), observations: [healthy('edge-1'), healthy('edge-2')] });
  expect(decided.events).toEqual([]);
  expect(decided.wakeAt).toEqual(later(30_000 + GATE_CHECK_MS));
  // Near the end, the next look is the soak's end.
  expect(decideProgress(rollout({ gateStatus: soaking }), configTargets, { now: later(59_500), observations: [healthy('edge-1'), healthy('edge-2')] }).wakeAt).toEqual(later(60_000));
});

test('L3 a batch that stayed healthy for the whole soak passes, and the next batch starts in the same decision', () => {
  given(rollout({ gateStatus: soaking }))
    .when((r) => decideProgress(r, configTargets, { now: later(60_000), observations: [healthy('edge-1'), healthy('edge-2')] }))
    .then([
      { streamId: 'rollout:ro-1', type: 'RolloutGatePassed', data: { rollout_id: 'ro-1', batch: 0 } },
      { streamId: 'rollout:ro-1', type: 'RolloutBatchStarted', data: { rollout_id: 'ro-1', batch: 1, intents: [{ node_id: 'edge-3', intent_id: 'in-edge-3' }] } },
      expect.objectContaining({ type: 'IntentOpened' }),
    ]);
});

test('L3 without a gate, or before every target converged, nothing soaks', () => {
  const decided = decideProgress(rollout({ gate: null }), configTargets, { now, observations: [] });
  expect(decided.events.map((e) => e.type)).toEqual(['RolloutBatchStarted', 'IntentOpened']);
  const applying: RolloutTarget = { ...converged('edge-2'), state: 'applying', intent: { ...converged('edge-2').intent!, state: 'converging' } };
  expect(decideProgress(rollout({ targets: [converged('edge-1'), applying, waiting('edge-3', 1)] }), configTargets, { now, observations: [] }).events).toEqual([]);
});

test('L4 a stream that crashed after its target converged fails the gate during the soak: evidence, then a pause', () => {
  given(rollout({ gateStatus: soaking }))
    .when((r) => decideProgress(r, configTargets, { now: later(31_000), observations: [healthy('edge-1'), crashed('edge-2')] }))
    .then([
      {
        streamId: 'rollout:ro-1',
        type: 'RolloutGateFailed',
        data: {
          rollout_id: 'ro-1',
          batch: 0,
          on_unhealthy: 'pause',
          evidence: [{ node_id: 'edge-2', stream_id: 'ingest', reason: 'not_running', detail: 'failed: exited with code 3', since: '2026-12-01T10:00:30.000Z' }],
        },
      },
      { streamId: 'rollout:ro-1', type: 'RolloutPaused', data: { rollout_id: 'ro-1', reason: 'health_gate' } },
    ]);
});

test('L4 an offline node, a fallback to another version and a restarting stream each count against the batch', () => {
  const offline: TargetObservation = { ...healthy('edge-1'), liveness: 'offline', lastSeenAt: '2026-12-01T09:57:00.000Z' };
  const fellBack: TargetObservation = { ...healthy('edge-2'), appliedVersion: 'cv-1' };
  const restarting: TargetObservation = { ...healthy('edge-2'), streams: [{ streamId: 'ingest', observed: { state: 'running', error: null, health: { status: 'running', exit_code: null, restarts: 2 }, reportedAt: now.toISOString() } }] };
  const failed = (o: TargetObservation[]) => decideProgress(rollout({ gateStatus: soaking }), configTargets, { now: later(1000), observations: o }).events.find((e) => e.type === 'RolloutGateFailed');
  expect(failed([offline, healthy('edge-2')])?.data).toMatchObject({ evidence: [{ node_id: 'edge-1', stream_id: null, reason: 'offline', since: '2026-12-01T09:57:00.000Z' }] });
  expect(failed([healthy('edge-1'), fellBack])?.data).toMatchObject({ evidence: [{ node_id: 'edge-2', reason: 'version_changed', detail: 'the node reports cv-1, not cv-2' }] });
  expect(failed([healthy('edge-1'), restarting])?.data).toMatchObject({ evidence: [{ node_id: 'edge-2', stream_id: 'ingest', reason: 'unhealthy', detail: "restarted 2 times within the agent's window" }] });
});

test('L4 up to max_unhealthy_targets targets may count against a batch; a stream of unknown health is not held against it', () => {
  const tolerant = rollout({ gate: { ...gate, max_unhealthy_targets: 1 }, gateStatus: soaking });
  expect(decideProgress(tolerant, configTargets, { now: later(1000), observations: [healthy('edge-1'), crashed('edge-2')] }).events).toEqual([]);
  expect(decideProgress(tolerant, configTargets, { now: later(1000), observations: [crashed('edge-1'), crashed('edge-2')] }).events.map((e) => e.type)).toEqual(['RolloutGateFailed', 'RolloutPaused']);
  const unknown: TargetObservation = { ...healthy('edge-1'), streams: [{ streamId: 'ingest', observed: { state: 'running', error: null, health: null, reportedAt: now.toISOString() } }] };
  expect(decideProgress(rollout({ gateStatus: soaking }), configTargets, { now: later(1000), observations: [unknown, healthy('edge-2')] }).events).toEqual([]);
});

test('L4 a batch resumed after its gate failed is watched again from a new soak', () => {
  const resumed = rollout({ gateStatus: null });
  expect(decideProgress(resumed, configTargets, { now: later(120_000), observations: [healthy('edge-1'), healthy('edge-2')] }).events).toEqual([
    { streamId: 'rollout:ro-1', type: 'RolloutGateSoaking', data: { rollout_id: 'ro-1', batch: 0, until: later(180_000).toISOString() } },
  ]);
});
