import { targetWaits, type WaitingRollout, type WaitingTarget } from '../rollouts/target-waiting.ts';
import { intentWaitsOn, WAIT_KINDS, type IntentWaitInput, type WaitIntent, type WaitKind, type WaitStream } from './waiting.ts';

// Issue 22, item 1: every stall has a reason. Given the state the projections hold, when the wait is derived,
// then it names its kind and the blocking thing. One test per kind; the last checks that every kind has one.

const now = new Date('2026-12-01T10:00:00.000Z');
const later = new Date('2026-12-01T10:00:30.000Z');
const intent: WaitIntent = {
  intentId: 'in-1',
  kind: 'lifecycle',
  streamId: 'ingest',
  nodeId: 'edge-1',
  generation: 2,
  desiredState: 'running',
  actionId: null,
  configVersion: null,
  recoveryRef: null,
  state: 'pending',
  retryCount: 0,
  nextRetryAt: null,
  awaiting: null,
  overridesHold: false,
  failureClass: null,
  failureCode: null,
};
const configuration: WaitIntent = { ...intent, intentId: 'in-c', kind: 'configuration', streamId: null, generation: 1, desiredState: null, configVersion: 'cv-2' };
const node = { nodeId: 'edge-1', maintenance: 'active' as const, liveness: 'online' as const, lastSeenAt: now, mode: 'configuration' as const, appliedConfigVersion: null, hold: null, unheardSince: null };
const given = (input: Partial<IntentWaitInput>): IntentWaitInput => ({ intent, node, attempt: null, streams: [], placementWaiting: [], ...input });

/** The newest lifecycle intent of stream `other` on edge-1, and what the node reports of it. */
const stream = (state: WaitStream['intent']['state'], observed: WaitStream['observed'], failureCode: string | null = null): WaitStream => ({
  intent: { intentId: 'in-other', streamId: 'other', generation: 1, desiredState: 'running', actionId: null, state, failureClass: failureCode && 'permanent', failureCode },
  observed,
});
const applied = { ...node, appliedConfigVersion: 'cv-2' };
const converging = { intent: { ...configuration, state: 'converging' as const }, node: applied, attempt: { attemptId: 'at-c', operation: 'config_apply', state: 'succeeded' as const, leaseExpiresAt: null } };

const tested = new Set<WaitKind>();
const expectWait = (wait: ReturnType<typeof intentWaitsOn>, expected: Record<string, unknown>) => {
  expect(wait).toMatchObject(expected);
  expect(wait?.message).toEqual(expect.any(String));
  tested.add(wait!.kind);
};

describe('intentWaitsOn', () => {
  test('done intents wait on nothing', () => {
    for (const state of ['converged', 'superseded'] as const) expect(intentWaitsOn(given({ intent: { ...intent, state } }), now)).toBeNull();
  });

  test('issue 22 stream_blocked: a configuration intent waits for a stream blocked on its node, and names it (the demo fleet\'s stall)', () => {
    const wait = intentWaitsOn(given({ ...converging, streams: [stream('blocked', { stream_id: 'other', generation: 1, state: 'failed', last_action_id: null, error: 'not found' }, 'command_not_found')] }), now);
    expectWait(wait, { kind: 'stream_blocked', nodeId: 'edge-1', streamId: 'other', intentId: 'in-other' });
    expect(wait!.message).toMatch(/stream other is blocked on node edge-1 \(permanent command_not_found\)/);
  });

  test('issue 22 stream_converging: a configuration intent waits for a stream still converging, or one the node no longer reports as desired', () => {
    expectWait(intentWaitsOn(given({ ...converging, streams: [stream('retrying', undefined)] }), now), { kind: 'stream_converging', streamId: 'other', intentId: 'in-other' });
    const drifted = intentWaitsOn(given({ ...converging, streams: [stream('converged', { stream_id: 'other', generation: 1, state: 'exited', last_action_id: null, error: null })] }), now);
    expectWait(drifted, { kind: 'stream_converging', streamId: 'other' });
    expect(drifted!.message).toMatch(/reports generation 1 exited/);
  });

  test('restored backup: a configuration intent waiting for a stream its node runs past the Hub\'s generation says a write was lost and what to do', () => {
    const ahead = intentWaitsOn(given({ ...converging, streams: [stream('converged', { stream_id: 'other', generation: 3, state: 'running', last_action_id: null, error: null })] }), now);
    expectWait(ahead, { kind: 'stream_converging', streamId: 'other', intentId: 'in-other' });
    expect(ahead!.message).toMatch(/at generation 1 here, but the node reports generation 3: a write this Hub's log does not hold .*; write a new generation of other$/);
  });

  test('issue 22 report: a converging intent waits for the report that proves it; a configuration one until the node shows the version, then until its streams are proven', () => {
    expectWait(intentWaitsOn(given({ intent: { ...intent, state: 'converging' } }), now), { kind: 'report', intentId: 'in-1', nodeId: 'edge-1' });
    // Not applied yet: the stream does not matter yet.
    expectWait(intentWaitsOn(given({ ...converging, node, streams: [stream('blocked', undefined, 'command_not_found')] }), now), { kind: 'report' });
    const proven = stream('converged', { stream_id: 'other', generation: 1, state: 'running', last_action_id: null, error: null });
    expectWait(intentWaitsOn(given({ ...converging, streams: [proven] }), now), { kind: 'report' });
  });

  test('issue 22 ambiguous_attempt: an ambiguous intent waits for a newer report, naming its attempt; a restore says it is not sent again', () => {
    const ambiguous = { ...intent, state: 'ambiguous' as const, awaiting: { bootId: 'b1', seq: 7 } };
    const attempt = { attemptId: 'at-1', operation: 'job_start', state: 'ambiguous' as const, leaseExpiresAt: now };
    const wait = intentWaitsOn(given({ intent: ambiguous, attempt }), now);
    expectWait(wait, { kind: 'ambiguous_attempt', attemptId: 'at-1', intentId: 'in-1' });
    expect(wait!.message).toMatch(/newer than report 7 of boot b1/);
    const restore = intentWaitsOn(given({ intent: { ...configuration, recoveryRef: 'rp-1', state: 'ambiguous' }, attempt }), now);
    expect(restore!.message).toMatch(/not sent again/);
  });

  test('issue 22 attempt_dispatched: the node holds the attempt: its result is due before the lease ends, whatever the node\'s gates', () => {
    const attempt = { attemptId: 'at-1', operation: 'job_start', state: 'dispatched' as const, leaseExpiresAt: later };
    const draining = { ...node, maintenance: 'draining' as const };
    expectWait(intentWaitsOn(given({ intent: { ...intent, state: 'converging' }, node: draining, attempt }), now), { kind: 'attempt_dispatched', attemptId: 'at-1', at: later });
  });

  test('issue 22 attempt_queued: a queued attempt waits for the agent to take it, unless a gate holds it', () => {
    const attempt = { attemptId: 'at-1', operation: 'job_start', state: 'queued' as const, leaseExpiresAt: null };
    expectWait(intentWaitsOn(given({ intent: { ...intent, state: 'converging' }, attempt }), now), { kind: 'attempt_queued', attemptId: 'at-1' });
    expectWait(intentWaitsOn(given({ intent: { ...intent, state: 'converging' }, attempt, node: { ...node, liveness: 'offline' } }), now), { kind: 'node_offline' });
  });

  test('issue 22 D1 node_draining: a draining node gets no new attempts', () => {
    expectWait(intentWaitsOn(given({ node: { ...node, maintenance: 'draining', liveness: 'offline' } }), now), { kind: 'node_draining', nodeId: 'edge-1' });
  });

  test('issue 22 node_offline node_stale: a silent node, also while a report is awaited', () => {
    expectWait(intentWaitsOn(given({ node: { ...node, liveness: 'offline' } }), now), { kind: 'node_offline', nodeId: 'edge-1' });
    expectWait(intentWaitsOn(given({ intent: { ...intent, state: 'converging' }, node: { ...node, liveness: 'stale' } }), now), { kind: 'node_stale', nodeId: 'edge-1' });
  });

  test('issue 22 B2 mode: configuration waits outside configuration mode, lifecycle in observe mode', () => {
    expectWait(intentWaitsOn(given({ intent: configuration, node: { ...node, mode: 'lifecycle' } }), now), { kind: 'mode', nodeId: 'edge-1' });
    expectWait(intentWaitsOn(given({ node: { ...node, mode: 'observe' } }), now), { kind: 'mode' });
    expectWait(intentWaitsOn(given({ node: { ...node, mode: 'lifecycle' } }), now), { kind: 'job' });
  });

  test('issue 22 I12 I13 recovery_hold: on a held node automated work waits, naming the claim; an override or a restore does not', () => {
    const held = { ...node, hold: { rolloutId: 'ro-1', claim: 'post_mutation' as const } };
    const wait = intentWaitsOn(given({ node: held }), now);
    expectWait(wait, { kind: 'recovery_hold', nodeId: 'edge-1' });
    expect(wait!.message).toMatch(/post_mutation recovery claim of rollout ro-1/);
    const attempt = { attemptId: 'at-1', operation: 'job_restart', state: 'queued' as const, leaseExpiresAt: null };
    expectWait(intentWaitsOn(given({ intent: { ...intent, actionId: 'ac-1', state: 'converging' }, node: held, attempt }), now), { kind: 'recovery_hold' });
    expectWait(intentWaitsOn(given({ intent: { ...configuration, state: 'retrying', nextRetryAt: later }, node: held }), now), { kind: 'recovery_hold' });
    expectWait(intentWaitsOn(given({ intent: { ...intent, overridesHold: true }, node: held }), now), { kind: 'job' });
    expectWait(intentWaitsOn(given({ intent: { ...configuration, recoveryRef: 'rp-1' }, node: held }), now), { kind: 'job' });
  });

  test("database_restored: on a node not heard from since the Hub's database was restored, every intent waits for its report, a queued attempt and an override included", () => {
    const unheard = { ...node, unheardSince: new Date('2026-12-01T09:00:00.000Z') };
    const wait = intentWaitsOn(given({ node: unheard }), now);
    expectWait(wait, { kind: 'database_restored', nodeId: 'edge-1' });
    expect(wait!.message).toBe(
      "the Hub's database was restored at 2026-12-01T09:00:00.000Z (its identity changed: a restore, a point-in-time recovery or a failover) and node edge-1 has not reported since: nothing is sent to it until it reports what it holds",
    );
    const queued = { attemptId: 'at-c', operation: 'config_apply', state: 'queued' as const, leaseExpiresAt: null };
    expectWait(intentWaitsOn(given({ intent: { ...configuration, state: 'converging' }, node: unheard, attempt: queued }), now), { kind: 'database_restored' });
    expectWait(intentWaitsOn(given({ intent: { ...intent, overridesHold: true }, node: unheard }), now), { kind: 'database_restored' });
  });

  test('issue 22 C1 retry: a retrying intent waits for its retry time; a due one for the queued pass', () => {
    const retrying = { ...intent, state: 'retrying' as const, retryCount: 2, nextRetryAt: later, failureClass: 'temporary', failureCode: 'busy' };
    const wait = intentWaitsOn(given({ intent: retrying }), now);
    expectWait(wait, { kind: 'retry', at: later, intentId: 'in-1' });
    expect(wait!.message).toMatch(/retry 2 after a temporary failure \(temporary busy\)/);
    expectWait(intentWaitsOn(given({ intent: retrying }), later), { kind: 'job' });
  });

  test('issue 22 E1 placement: a split placement waits for a node that has not registered; a stop does not', () => {
    expectWait(intentWaitsOn(given({ placementWaiting: ['edge-3'] }), now), { kind: 'placement', nodeId: 'edge-3', streamId: 'ingest' });
    expectWait(intentWaitsOn(given({ intent: { ...intent, desiredState: 'stopped' }, placementWaiting: ['edge-3'] }), now), { kind: 'job' });
  });

  test('issue 22 job: a pending intent waits for its node\'s reconcile pass', () => {
    expectWait(intentWaitsOn(given({}), now), { kind: 'job', nodeId: 'edge-1' });
  });

  test('issue 22 A1 node_unregistered: an intent on a node that never registered', () => {
    expectWait(intentWaitsOn(given({ node: null }), now), { kind: 'node_unregistered', nodeId: 'edge-1' });
  });

  test('issue 22 C2 new_generation: a blocked intent waits for a new generation', () => {
    const blocked = { ...intent, state: 'blocked' as const, failureClass: 'permanent', failureCode: 'command_not_found' };
    expectWait(intentWaitsOn(given({ intent: blocked, node: null }), now), { kind: 'new_generation', intentId: 'in-1' });
  });

  test('C5 new_generation: a configuration intent blocked node_ahead_of_log says the node holds a version the log does not know, and what applies over it', () => {
    const ahead = { ...configuration, state: 'blocked' as const, failureClass: 'permanent', failureCode: 'node_ahead_of_log' };
    const wait = intentWaitsOn(given({ intent: ahead, node }), now);
    expectWait(wait, { kind: 'new_generation', intentId: 'in-c', nodeId: 'edge-1' });
    expect(wait!.message).toMatch(/^node edge-1 reports a configuration version this Hub's log does not know .*: this config_apply of cv-2, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it$/);
  });
});

describe('targetWaits', () => {
  const target = (nodeId: string, batch: number, state: WaitingTarget['state'], recovery: WaitingTarget['recovery'] = { phase: null, claim: null }): WaitingTarget => ({
    nodeId,
    batch,
    state,
    recovery,
    recoveryIntentId: recovery.phase || recovery.claim ? `restore-${nodeId}` : null,
  });
  const rollout = (targets: WaitingTarget[], state: WaitingRollout['state'] = 'applying'): WaitingRollout => ({ state, pausedReason: null, currentBatch: 0, gateStatus: null, targets });
  const reportWait = intentWaitsOn(given({ intent: { ...intent, state: 'converging' } }), now);

  test('an applying target waits on its intent\'s wait; settled targets wait on nothing', () => {
    const r = rollout([target('edge-1', 0, 'applying'), target('edge-2', 0, 'converged'), target('edge-3', 0, 'failed')]);
    expect(targetWaits(r)(r.targets[0]!, reportWait)).toBe(reportWait);
    expect(targetWaits(r)(r.targets[1]!, null)).toBeNull();
    expect(targetWaits(r)(r.targets[2]!, null)).toBeNull();
  });

  test('issue 22 G1 batch: a target of a later batch names a target of the current batch that has not converged', () => {
    const r = rollout([target('edge-1', 0, 'converged'), target('edge-2', 0, 'applying'), target('edge-3', 1, 'waiting')]);
    expectWait(targetWaits(r)(r.targets[2]!, null), { kind: 'batch', nodeId: 'edge-2' });
  });

  test('G1 batch: one rollout\'s waits, asked for each target in turn, name each target\'s own batch', () => {
    const r = rollout([target('edge-1', 0, 'applying'), target('edge-2', 1, 'waiting'), target('edge-3', 2, 'waiting'), target('edge-4', 1, 'waiting')]);
    const waits = targetWaits(r);
    expect(r.targets.slice(1).map((t) => waits(t, null)!.message)).toEqual([
      'batch 2 starts once batch 1 has converged; node edge-1 is applying',
      'batch 3 starts once batch 1 has converged; node edge-1 is applying',
      'batch 2 starts once batch 1 has converged; node edge-1 is applying',
    ]);
  });

  test('issue 22 job: a converged intent, or a converged batch, waits for the rollout\'s queued pass', () => {
    const r = rollout([target('edge-1', 0, 'applying'), target('edge-2', 0, 'converged'), target('edge-3', 1, 'waiting')]);
    expectWait(targetWaits(r)(r.targets[0]!, null), { kind: 'job', nodeId: 'edge-1' });
    const settled = rollout([target('edge-2', 0, 'converged'), target('edge-3', 1, 'waiting')]);
    expectWait(targetWaits(settled)(settled.targets[1]!, null), { kind: 'job' });
  });

  test('L3 health_gate: a converged batch whose gate soaks holds the next batch until the soak\'s end, not a queued pass', () => {
    const until = '2026-12-07T10:01:00.000Z';
    const r = { ...rollout([target('edge-2', 0, 'converged'), target('edge-3', 1, 'waiting')]), gateStatus: { batch: 0, state: 'soaking' as const, until } };
    const wait = targetWaits(r)(r.targets[1]!, null)!;
    expectWait(wait, { kind: 'health_gate', at: new Date(until) });
    expect(wait.message).toMatch(/batch 1 converged and its health gate soaks until 2026-12-07T10:01:00.000Z/);
    // The gate of a batch before, or one that passed, holds nothing: the pass that starts the next batch is queued.
    const passed = { ...r, gateStatus: { batch: 0, state: 'passed' as const, until: null } };
    expectWait(targetWaits(passed)(passed.targets[1]!, null), { kind: 'job' });
  });

  test('issue 22 I5 recovery_hold: a restore in flight or a holding claim keeps the next batch waiting, naming the held target', () => {
    const r = rollout([target('edge-1', 0, 'converged', { phase: 'restoring', claim: null }), target('edge-3', 1, 'waiting')]);
    expectWait(targetWaits(r)(r.targets[1]!, null), { kind: 'recovery_hold', nodeId: 'edge-1', intentId: 'restore-edge-1' });
    const claimed = rollout([target('edge-1', 0, 'failed', { phase: 'failed', claim: 'unknown' }), target('edge-3', 1, 'waiting')]);
    expect(targetWaits(claimed)(claimed.targets[1]!, null)!.message).toMatch(/unknown recovery claim on node edge-1/);
  });

  test('issue 22 G2 rollout_paused: waiting targets of a paused rollout wait for resume; a terminal rollout\'s wait on nothing', () => {
    const r = rollout([target('edge-1', 0, 'applying'), target('edge-3', 1, 'waiting')], 'paused');
    expectWait(targetWaits(r)(r.targets[1]!, null), { kind: 'rollout_paused' });
    expectWait(targetWaits(r)(r.targets[0]!, null), { kind: 'rollout_paused' });
    expect(targetWaits({ ...r, state: 'cancelled' })(r.targets[1]!, null)).toBeNull();
  });
});

afterAll(() => {
  // Every kind has its test above.
  expect(WAIT_KINDS.filter((k) => !tested.has(k))).toEqual([]);
});
