import { given } from '../../../../test/support/decider.ts';
import type { AttemptState } from './attempt.ts';
import { decideDesiredWrite, writeNodes, type DesiredWrite, type LiveIntent } from './desired.ts';
import { decideDispatch, type DispatchCandidate, type DispatchNode } from './dispatch.ts';
import type { IntentState } from './intent.ts';
import { decideLease, decideLeaseExpiry } from './lease.ts';
import { decideReport, type ReportingNode } from './report.ts';
import { decideResult } from './result.ts';
import type { StreamState } from './stream.ts';

const now = new Date('2026-12-01T10:00:00.000Z');
const spec = { command: 'sleep', args: ['60'] };
const stream: StreamState = { streamId: 's1', generation: 1, desiredState: 'running', spec, placement: { nodes: ['edge-1', 'edge-2'], split: false }, actionId: null };
const intent: IntentState = {
  intentId: 'in-1',
  kind: 'lifecycle',
  streamId: 's1',
  nodeId: 'edge-1',
  generation: 1,
  desiredState: 'running',
  actionId: null,
  configVersion: null,
  rolloutId: null,
  recoveryRef: null,
  state: 'pending',
  retryCount: 0,
  nextRetryAt: null,
  awaiting: null,
  openedAt: now,
  overridesHold: false,
};
const live: LiveIntent = { ...intent, queuedAttempts: ['at-0'] };
const opened = (intentId: string, nodeId: string, generation: number, desired: 'running' | 'stopped') => ({
  streamId: `intent:${intentId}`,
  type: 'IntentOpened' as const,
  data: { intent_id: intentId, kind: 'lifecycle' as const, stream_id: 's1', node_id: nodeId, generation, desired_state: desired, action_id: null, config_version: null, rollout_id: null, recovery_ref: null },
});

describe('decideDesiredWrite', () => {
  const write: DesiredWrite = { streamId: 's1', desired: { desired_state: 'running', spec, placement: { nodes: ['edge-1'], split: false } }, actionId: null, ifMatch: 1, overrideHold: false };
  const ids = new Map([['edge-1', 'in-new-1'], ['edge-2', 'in-new-2']]);

  test('A2 A5 a write is a new generation with an intent per node; a node it drops gets a stop; older live intents are superseded', () => {
    expect(writeNodes(stream, [live], write)).toEqual(['edge-1', 'edge-2']);
    given({ stream, live: [live] })
      .when((s) => decideDesiredWrite(s.stream, s.live, new Set(['edge-1', 'edge-2']), write, ids, 0))
      .then([
        { streamId: 'stream:s1', type: 'StreamDesired', data: { stream_id: 's1', generation: 2, desired_state: 'running', spec, placement: { nodes: ['edge-1'], split: false }, action_id: null } },
        opened('in-new-1', 'edge-1', 2, 'running'),
        opened('in-new-2', 'edge-2', 2, 'stopped'),
        { streamId: 'intent:in-1', type: 'IntentSuperseded', data: { intent_id: 'in-1', superseded_by: 'in-new-1', withdrawn_attempts: ['at-0'] } },
      ]);
  });

  test('A3 a write at another generation than If-Match, a restart of a missing or stopped stream, are refused', () => {
    given(stream).when((s) => decideDesiredWrite(s, [], new Set(), { ...write, ifMatch: 7 }, ids, 0)).thenFails('generation_conflict', { stream_id: 's1', generation: 1 });
    given(null).when((s) => decideDesiredWrite(s, [], new Set(), { ...write, desired: null, ifMatch: null }, ids, 0)).thenFails('stream_not_found');
    given({ ...stream, desiredState: 'stopped' as const })
      .when((s) => decideDesiredWrite(s, [], new Set(), { ...write, desired: null, actionId: 'ac-1', ifMatch: null }, ids, 0))
      .thenFails('stream_not_running');
  });

  test('restored backup: a write goes past the generation a node reports, and says so; If-Match still names the Hub\'s own', () => {
    const write3 = { ...write, desired: { ...write.desired!, placement: { nodes: ['edge-1', 'edge-2'], split: false } } };
    given(stream)
      .when((s) => decideDesiredWrite(s, [], new Set(['edge-1', 'edge-2']), write3, ids, 4))
      .then([
        { streamId: 'stream:s1', type: 'StreamDesired', data: { stream_id: 's1', generation: 5, desired_state: 'running', spec, placement: write3.desired.placement, action_id: null, reported_generation: 4 } },
        opened('in-new-1', 'edge-1', 5, 'running'),
        opened('in-new-2', 'edge-2', 5, 'running'),
      ]);
    // A node at the Hub's generation, or behind it, changes nothing.
    given(stream)
      .when((s) => decideDesiredWrite(s, [], new Set(['edge-1', 'edge-2']), write3, ids, 1))
      .then([
        { streamId: 'stream:s1', type: 'StreamDesired', data: { stream_id: 's1', generation: 2, desired_state: 'running', spec, placement: write3.desired.placement, action_id: null } },
        opened('in-new-1', 'edge-1', 2, 'running'),
        opened('in-new-2', 'edge-2', 2, 'running'),
      ]);
  });
});

describe('decideDispatch', () => {
  const node: DispatchNode = { nodeId: 'edge-1', registered: true, maintenance: 'active', mode: 'lifecycle', hold: null, configAhead: null, unheardSince: null };
  const candidate: DispatchCandidate = { ...intent, spec, placement: stream.placement, hasActiveAttempt: false, observedActionId: null, siblings: [], newAttemptId: 'at-1' };
  const queued = { streamId: 'intent:in-1', type: 'AttemptQueued', data: { attempt_id: 'at-1', intent_id: 'in-1', node_id: 'edge-1', stream_id: 's1', generation: 1, operation: 'job_start', action_id: null, config_version: null, spec } } as const;

  test('a pending intent gets an attempt with the id made for it', () => {
    given(node).when((n) => decideDispatch(n, [candidate], new Map(), now)).then([queued]);
  });

  test('B1 D1 C1 nothing is queued in observe mode, on a draining node, for an intent with an attempt, or before its retry time', () => {
    given({ ...node, mode: 'observe' as const }).when((n) => decideDispatch(n, [candidate], new Map(), now)).then([]);
    given({ ...node, maintenance: 'draining' as const }).when((n) => decideDispatch(n, [candidate], new Map(), now)).then([]);
    given(node).when((n) => decideDispatch(n, [{ ...candidate, hasActiveAttempt: true }], new Map(), now)).then([]);
    const later = new Date(now.getTime() + 1000);
    given(node).when((n) => decideDispatch(n, [{ ...candidate, state: 'retrying', nextRetryAt: later }], new Map(), now)).then([]);
  });

  const held: DispatchNode = { ...node, mode: 'configuration', hold: { rolloutId: 'ro-1', claim: 'post_mutation' } };
  const apply: DispatchCandidate = { ...candidate, intentId: 'in-c', kind: 'configuration', streamId: null, desiredState: null, configVersion: 'cv-2', rolloutId: 'ro-2', placement: null, spec: { content: 'x' } };
  const automated: DispatchCandidate[] = [
    candidate,
    { ...candidate, intentId: 'in-r', state: 'retrying', nextRetryAt: now, retryCount: 2 },
    { ...candidate, intentId: 'in-x', actionId: 'ac-1' },
    { ...candidate, intentId: 'in-s', desiredState: 'stopped' },
    apply,
  ];

  test('I12 on a held node nothing is queued on its own: no start, due retry, restart, stop or configuration apply', () => {
    given(held).when((n) => decideDispatch(n, automated, new Map(), now)).then([]);
  });

  test('I13 a write made with override_hold and a restore go to a held node, their attempts recorded as going through the hold', () => {
    const restore = { ...apply, recoveryRef: 'rp-1', spec: { recovery_ref: 'rp-1' }, newAttemptId: 'at-2' };
    given(held)
      .when((n) => decideDispatch(n, [{ ...candidate, overridesHold: true }, restore], new Map(), now))
      .then([
        { ...queued, data: { ...queued.data, override_hold: true } },
        {
          streamId: 'intent:in-c',
          type: 'AttemptQueued',
          data: { attempt_id: 'at-2', intent_id: 'in-c', node_id: 'edge-1', stream_id: null, generation: 1, operation: 'restore', action_id: null, config_version: 'cv-2', spec: { recovery_ref: 'rp-1' }, override_hold: true },
        },
      ]);
  });

  test('I11 I12 with the hold retired the same intents are queued in the next pass, with nothing else to do', () => {
    const events = decideDispatch({ ...held, hold: null }, automated, new Map(), now);
    expect(events.map((e) => [e.type, (e.data as { operation: string }).operation])).toEqual([
      ['AttemptQueued', 'job_start'],
      ['AttemptQueued', 'job_start'],
      ['AttemptQueued', 'job_restart'],
      ['AttemptQueued', 'job_stop'],
      ['AttemptQueued', 'config_apply'],
    ]);
  });

  describe('C5 a node reporting a configuration version the log does not know (a Hub restored from a backup)', () => {
    // The node was at configuration generation 3 when it first reported the unknown version, now.
    const ahead: DispatchNode = { ...node, mode: 'configuration', configAhead: { generation: 3, at: now } };
    const before: DispatchCandidate = { ...apply, generation: 3 };
    const message =
      "node edge-1 reports a configuration version this Hub's log does not know (applied after the backup its database was restored from?): " +
      'this config_apply of cv-2, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it';

    test('an apply or a restore opened before that report is blocked node_ahead_of_log, nothing sent: its reopened apply is not sent again', () => {
      const restore: DispatchCandidate = { ...before, intentId: 'in-r', generation: 2, recoveryRef: 'rp-1', spec: { recovery_ref: 'rp-1' } };
      given(ahead)
        .when((n) => decideDispatch(n, [before, restore], new Map(), now))
        .then([
          { streamId: 'intent:in-c', type: 'IntentBlocked', data: { intent_id: 'in-c', failure_class: 'permanent', code: 'node_ahead_of_log', message } },
          {
            streamId: 'intent:in-r',
            type: 'IntentBlocked',
            data: { intent_id: 'in-r', failure_class: 'permanent', code: 'node_ahead_of_log', message: message.replace('config_apply', 'restore') },
          },
        ]);
    });

    test('an apply opened since (a resume, a new rollout) and lifecycle intents are queued as usual', () => {
      const events = decideDispatch(ahead, [{ ...apply, generation: 4 }, candidate], new Map(), now);
      expect(events.map((e) => [e.type, (e.data as { operation: string }).operation])).toEqual([
        ['AttemptQueued', 'config_apply'],
        ['AttemptQueued', 'job_start'],
      ]);
    });

    test('a node whose version the log knows (no mark) is sent the same apply', () => {
      given({ ...ahead, configAhead: null })
        .when((n) => decideDispatch(n, [before], new Map(), now))
        .then([expect.objectContaining({ type: 'AttemptQueued', data: expect.objectContaining({ intent_id: 'in-c', operation: 'config_apply', generation: 3 }) })]);
    });

    test('the gates come first: nothing is decided for it in observe mode or on a held node', () => {
      given({ ...ahead, mode: 'observe' as const }).when((n) => decideDispatch(n, [before], new Map(), now)).then([]);
      given({ ...ahead, hold: { rolloutId: 'ro-1', claim: 'post_mutation' as const } }).when((n) => decideDispatch(n, [before], new Map(), now)).then([]);
    });
  });

  describe("a node not heard from since the Hub's database was restored", () => {
    const restoredAt = new Date(now.getTime() - 60_000);
    const unheard: DispatchNode = { ...node, mode: 'configuration', unheardSince: restoredAt };

    test('nothing is queued for it, of any kind, however recently decided: its intents wait for its report', () => {
      given(unheard).when((n) => decideDispatch(n, automated, new Map(), now)).then([]);
      given(unheard).when((n) => decideDispatch(n, [{ ...candidate, overridesHold: true }, { ...apply, generation: 9 }], new Map(), now)).then([]);
    });

    test('once it reported since, the same pass queues them', () => {
      const events = decideDispatch({ ...unheard, unheardSince: null }, [candidate, apply], new Map(), now);
      expect(events.map((e) => [e.type, (e.data as { operation: string }).operation])).toEqual([
        ['AttemptQueued', 'job_start'],
        ['AttemptQueued', 'config_apply'],
      ]);
    });

    test('its report shows it ahead of the log: an apply decided before the restore is then blocked node_ahead_of_log, not sent', () => {
      given({ ...unheard, unheardSince: null, configAhead: { generation: 1, at: now } })
        .when((n) => decideDispatch(n, [apply], new Map(), now))
        .then([expect.objectContaining({ type: 'IntentBlocked', data: expect.objectContaining({ intent_id: 'in-c', code: 'node_ahead_of_log' }) })]);
    });
  });

  test('E3 a start of a split placement carries the node\'s index, the count and every peer\'s data address; a stop carries none', () => {
    const split = { ...candidate, placement: { nodes: ['edge-2', 'edge-1'], split: true } };
    const peers = new Map([
      ['edge-1', { nodeId: 'edge-1', capabilities: ['network_shuffle'], dataAddress: '10.0.0.1:9000' }],
      ['edge-2', { nodeId: 'edge-2', capabilities: ['network_shuffle'], dataAddress: '10.0.0.2:9000' }],
    ]);
    const placement = { index: 1, count: 2, peers: [{ node_id: 'edge-2', data_address: '10.0.0.2:9000' }, { node_id: 'edge-1', data_address: '10.0.0.1:9000' }] };
    given(node).when((n) => decideDispatch(n, [split], peers, now)).then([{ ...queued, data: { ...queued.data, placement } }]);
    given(node)
      .when((n) => decideDispatch(n, [{ ...split, desiredState: 'stopped' }], peers, now))
      .then([{ ...queued, data: { ...queued.data, operation: 'job_stop' } }]);
  });

  test('E1 a split placement with a node lacking network_shuffle blocks the intent instead of queuing it', () => {
    const split = { ...candidate, placement: { nodes: ['edge-1', 'edge-2'], split: true } };
    const peers = new Map([
      ['edge-1', { nodeId: 'edge-1', capabilities: ['network_shuffle'], dataAddress: '10.0.0.1:9000' }],
      ['edge-2', { nodeId: 'edge-2', capabilities: [], dataAddress: null }],
    ]);
    given(node)
      .when((n) => decideDispatch(n, [split], peers, now))
      .then([
        {
          streamId: 'intent:in-1',
          type: 'IntentBlocked',
          data: { intent_id: 'in-1', failure_class: 'placement', code: 'placement_rejected', message: 'split placement needs network_shuffle and a data address on every node; missing on edge-2' },
        },
      ]);
  });
});

describe('leases', () => {
  const node: DispatchNode = { nodeId: 'edge-1', registered: true, maintenance: 'active', mode: 'lifecycle', hold: null, configAhead: null, unheardSince: null };
  const attempt: AttemptState & { overridesHold: boolean } = {
    attemptId: 'at-1',
    intentId: 'in-1',
    nodeId: 'edge-1',
    streamId: 's1',
    configVersion: null,
    generation: 1,
    operation: 'job_start',
    actionId: null,
    spec,
    state: 'queued',
    leaseExpiresAt: null,
    placement: null,
    overridesHold: false,
  };

  test('a queued attempt is dispatched with a lease; none in observe mode', () => {
    given(node)
      .when((n) => decideLease(n, [attempt], now, 30_000))
      .then([{ streamId: 'intent:in-1', type: 'AttemptDispatched', data: { attempt_id: 'at-1', intent_id: 'in-1', node_id: 'edge-1', lease_expires_at: '2026-12-01T10:00:30.000Z' } }]);
    given({ ...node, mode: 'observe' as const }).when((n) => decideLease(n, [attempt], now, 30_000)).then([]);
  });

  test('I12 I13 a held node is handed only what an operator sent through the hold: an attempt queued before the claim waits', () => {
    const held = { ...node, mode: 'configuration' as const, hold: { rolloutId: 'ro-1', claim: 'unknown' as const } };
    given(held).when((n) => decideLease(n, [attempt], now, 30_000)).then([]);
    given(held)
      .when((n) => decideLease(n, [{ ...attempt, overridesHold: true }, { ...attempt, attemptId: 'at-2', operation: 'restore' }], now, 30_000))
      .then(['at-1', 'at-2'].map((id) => ({ streamId: 'intent:in-1', type: 'AttemptDispatched', data: { attempt_id: id, intent_id: 'in-1', node_id: 'edge-1', lease_expires_at: '2026-12-01T10:00:30.000Z' } })));
  });

  describe("an attempt queued before the Hub's database was restored (the backup held it)", () => {
    const apply = { ...attempt, attemptId: 'at-c', intentId: 'in-c', streamId: null, configVersion: 'cv-1', generation: 3, operation: 'config_apply' as const, spec: { content: 'x' } };
    const configuring = { ...node, mode: 'configuration' as const };

    test('is not handed to a node not heard from since, nor is anything else', () => {
      given({ ...configuring, unheardSince: new Date(now.getTime() - 60_000) }).when((n) => decideLease(n, [attempt, apply], now, 30_000)).then([]);
    });

    test('C5 is not delivered to a node that reported since a version the log does not know: its intent is blocked node_ahead_of_log (its attempt withdrawn); a lifecycle attempt goes', () => {
      given({ ...configuring, configAhead: { generation: 3, at: now } })
        .when((n) => decideLease(n, [apply, attempt], now, 30_000))
        .then([
          {
            streamId: 'intent:in-c',
            type: 'IntentBlocked',
            data: {
              intent_id: 'in-c',
              failure_class: 'permanent',
              code: 'node_ahead_of_log',
              message:
                "node edge-1 reports a configuration version this Hub's log does not know (applied after the backup its database was restored from?): " +
                'this config_apply of cv-1, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it',
            },
          },
          { streamId: 'intent:in-1', type: 'AttemptDispatched', data: { attempt_id: 'at-1', intent_id: 'in-1', node_id: 'edge-1', lease_expires_at: '2026-12-01T10:00:30.000Z' } },
        ]);
    });

    test('is delivered to a node that reported since a version the log knows (an agent that ran it answers from its journal)', () => {
      given(configuring)
        .when((n) => decideLease(n, [apply], now, 30_000))
        .then([{ streamId: 'intent:in-c', type: 'AttemptDispatched', data: { attempt_id: 'at-c', intent_id: 'in-c', node_id: 'edge-1', lease_expires_at: '2026-12-01T10:00:30.000Z' } }]);
    });
  });

  test('C4 a dispatched attempt whose lease ran out is ambiguous, its intent waiting for a report newer than the last', () => {
    const expired = { ...attempt, state: 'dispatched' as const, leaseExpiresAt: now, intentState: 'converging' as const, nodeReport: { bootId: 'b1', seq: 4 } };
    given([expired])
      .when((a) => decideLeaseExpiry(a, now))
      .then([{ streamId: 'intent:in-1', type: 'AttemptAmbiguous', data: { attempt_id: 'at-1', intent_id: 'in-1', reason: 'lease_expired', awaiting: { bootId: 'b1', seq: 4 }, intent_waits: true } }]);
    given([{ ...expired, leaseExpiresAt: new Date(now.getTime() + 1) }]).when((a) => decideLeaseExpiry(a, now)).then([]);
  });

  test('C1 C2 a temporary failure schedules a retry with backoff; a permanent one blocks; a result for another generation is refused', () => {
    const dispatched = { ...attempt, state: 'dispatched' as const, leaseExpiresAt: new Date(now.getTime() + 30_000) };
    const converging = { ...intent, state: 'converging' as const };
    const failed = (failure_class: 'temporary' | 'permanent') => ({ outcome: 'failed' as const, generation: 1, failure_class, code: 'x', message: null, mutation: null });
    const policy = { baseMs: 1000, maxMs: 8000 };
    given(dispatched)
      .when((a) => decideResult(a, converging, null, failed('temporary'), now, policy, 1))
      .then([
        {
          streamId: 'intent:in-1',
          type: 'AttemptFailed',
          data: { attempt_id: 'at-1', intent_id: 'in-1', failure_class: 'temporary', code: 'x', message: null, mutation: null, intent_state: 'retrying', retry_count: 1, next_retry_at: '2026-12-01T10:00:01.000Z', current: true },
        },
      ]);
    given(dispatched)
      .when((a) => decideResult(a, converging, null, failed('permanent'), now, policy, 1))
      .then([
        {
          streamId: 'intent:in-1',
          type: 'AttemptFailed',
          data: { attempt_id: 'at-1', intent_id: 'in-1', failure_class: 'permanent', code: 'x', message: null, mutation: null, intent_state: 'blocked', retry_count: 0, next_retry_at: null, current: true },
        },
      ]);
    given(dispatched).when((a) => decideResult(a, converging, null, { ...failed('temporary'), generation: 2 }, now, policy, 1)).thenFails('generation_mismatch');
    given(dispatched)
      .when((a) => decideResult(a, converging, null, { ...failed('temporary'), outcome: 'succeeded', failure_class: null }, now, policy, 1))
      .then([{ streamId: 'intent:in-1', type: 'AttemptSucceeded', data: { attempt_id: 'at-1', intent_id: 'in-1', current: true } }]);
  });
});

describe('decideReport', () => {
  const node: ReportingNode = { nodeId: 'edge-1', bootId: 'b1', lastReport: { bootId: 'b1', seq: 3 }, digest: null };
  const report = { node_id: 'edge-1', boot_id: 'b1', report_seq: 4, full: true as const, streams: [{ stream_id: 's1', generation: 1, state: 'running', last_action_id: null, error: null }], configuration: { applied_version: null, recovery_points: [] } };

  test('A9 a report proving an intent converges it, and is recorded itself', () => {
    given(node)
      .when((n) => decideReport(n, report, [{ ...intent, state: 'converging' }]))
      .then([
        { streamId: 'node:edge-1', type: 'NodeReported', data: { seq: 4, streams: [['s1', 1, 'running']], config: null, points: [] } },
        { streamId: 'intent:in-1', type: 'IntentConverged', data: { intent_id: 'in-1', report: { bootId: 'b1', seq: 4 } } },
      ]);
  });

  test('C5 a newer report that does not prove an ambiguous intent reopens it', () => {
    given(node)
      .when((n) => decideReport(n, { ...report, streams: [] }, [{ ...intent, state: 'ambiguous', awaiting: { bootId: 'b1', seq: 3 } }]))
      .then([
        { streamId: 'node:edge-1', type: 'NodeReported', data: { seq: 4, streams: [], config: null, points: [] } },
        { streamId: 'intent:in-1', type: 'IntentReopened', data: { intent_id: 'in-1', report: { bootId: 'b1', seq: 4 } } },
      ]);
  });

  test('A10 I12 a restore is proven by the version alone, an apply also by the streams placed on the node', () => {
    const config = { ...intent, kind: 'configuration' as const, streamId: null, desiredState: null, configVersion: 'cv-1', state: 'blocked' as const };
    const atVersion = { ...report, streams: [], configuration: { applied_version: 'cv-1', recovery_points: [] } };
    const converged = { streamId: 'intent:in-1', type: 'IntentConverged' as const, data: { intent_id: 'in-1', report: { bootId: 'b1', seq: 4 } } };
    const events = (i: IntentState) => decideReport(node, atVersion, [i], [{ streamId: 's1', generation: 1, desiredState: 'running', actionId: null }]);
    given({ ...config, recoveryRef: 'rp-1' }).when(events).then([{ streamId: 'node:edge-1', type: 'NodeReported', data: { seq: 4, streams: [], config: 'cv-1', points: [] } }, converged]);
    given(config).when(events).then([{ streamId: 'node:edge-1', type: 'NodeReported', data: { seq: 4, streams: [], config: 'cv-1', points: [] } }]);
  });

  test('A8 a report not after the last one, or of another boot, is refused as stale', () => {
    given(node).when((n) => decideReport(n, { ...report, report_seq: 3 }, [])).thenFails('stale_report');
    given(node).when((n) => decideReport(n, { ...report, boot_id: 'b0' }, [])).thenFails('stale_report');
  });
});
