import { sweptOut, takeAttempts, takeConfigAttempts, TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';

// Why an attempt exists (SPEC J1): GET /attempts/{id} and its causation chain back to a person or a node.
// Leases and backoff run on an injected clock; configuration mode, so rollouts dispatch too.

let now = new Date('2026-11-30T12:00:00.000Z');
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
const suite = hubSuite({ config: testConfig(6, { mode: 'configuration', lease_ms: 30_000 }), clock: { now: () => now } });

const why = async (attemptId: string) => {
  const r = await suite.hub.call('GET', `/api/v1/attempts/${attemptId}`, { token: TOKENS.viewer });
  expect(r.status).toBe(200);
  return r.body;
};
const relations = (body: any) => body.why.map((l: any) => `${l.relation}:${l.type}`);
const linkOf = (body: any, relation: string) => body.why.find((l: any) => l.relation === relation);

async function agent(n: number): Promise<TestAgent> {
  return TestAgent.reporting(suite.hub, `edge-${n}`);
}

const putStream = (id: string, node: string, correlationId: string) =>
  suite.hub.call('PUT', `/api/v1/streams/${id}`, {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [node] } },
    headers: { 'x-correlation-id': correlationId },
  });

test('J1 an attempt\'s why chain reaches the operator\'s desired write, with actor, role, correlation id, time and position', async () => {
  const a = await agent(1);
  expect((await putStream('j1-web', 'edge-1', 'j1-put-web')).status).toBe(200);
  const [attempt] = await takeAttempts(a, 'j1-web');
  const body = await why(attempt.attempt_id);
  expect(body).toMatchObject({ attempt_id: attempt.attempt_id, intent_id: attempt.intent_id, state: 'dispatched', intent: { intent_id: attempt.intent_id, stream_id: 'j1-web', generation: 1 } });
  expect(relations(body)).toEqual(['queued:AttemptQueued', 'opened:IntentOpened', 'desired:StreamDesired']);
  expect(linkOf(body, 'queued')).toMatchObject({ stream_id: `intent:${attempt.intent_id}`, actor: 'hub', role: 'system', source: 'worker', data: { attempt_id: attempt.attempt_id } });
  const desired = linkOf(body, 'desired');
  expect(desired).toEqual({
    relation: 'desired',
    position: expect.any(Number),
    stream_id: 'stream:j1-web',
    type: 'StreamDesired',
    event_id: expect.any(String),
    actor: 'bob',
    role: 'operator',
    correlation_id: 'j1-put-web',
    source: 'api',
    recorded_at: now.toISOString(),
    data: expect.objectContaining({ stream_id: 'j1-web', generation: 1 }),
  });
  expect(linkOf(body, 'opened').correlation_id).toBe('j1-put-web');
  // From the attempt back to its cause: each link is older in the log.
  const positions = body.why.map((l: any) => l.position);
  expect(positions).toEqual([...positions].sort((x, y) => y - x));
  // A second desired write is a new generation: its attempt points at that write, not the first.
  await a.result(attempt.attempt_id, { outcome: 'succeeded', generation: 1 });
  expect((await putStream('j1-web', 'edge-1', 'j1-put-web-2')).status).toBe(200);
  const [next] = await takeAttempts(a, 'j1-web');
  expect(linkOf(await why(next.attempt_id), 'desired')).toMatchObject({ correlation_id: 'j1-put-web-2', data: { generation: 2 } });
});

test('J1 a retry\'s why names the failure it follows; an attempt after an ambiguous one names the report that reopened its intent', async () => {
  const a = await agent(2);
  await putStream('j1-retry', 'edge-2', 'j1-put-retry');
  const [first] = await takeAttempts(a, 'j1-retry');
  await a.result(first.attempt_id, { outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'unreachable' });
  advance(60_000);
  await suite.hub.context.reconciler.reconcile('edge-2', 'test');
  const [second] = await takeAttempts(a, 'j1-retry');
  const retried = await why(second.attempt_id);
  expect(relations(retried)).toEqual(['queued:AttemptQueued', 'retried_after:AttemptFailed', 'opened:IntentOpened', 'desired:StreamDesired']);
  expect(linkOf(retried, 'retried_after')).toMatchObject({ actor: 'edge-2-agent', role: 'agent', data: { attempt_id: first.attempt_id, intent_state: 'retrying' } });

  // The second attempt's lease expires: ambiguous, until a newer report reopens the intent.
  advance(31_000);
  await sweptOut(suite.hub, 'j1-retry');
  expect((await a.report()).status).toBe(202);
  const [third] = await takeAttempts(a, 'j1-retry');
  const reopened = await why(third.attempt_id);
  expect(relations(reopened)).toEqual([
    'queued:AttemptQueued',
    'reopened:IntentReopened',
    'reported:NodeReported',
    'opened:IntentOpened',
    'desired:StreamDesired',
  ]);
  expect(linkOf(reopened, 'reported')).toMatchObject({ stream_id: 'node:edge-2', actor: 'edge-2-agent', role: 'agent', data: { seq: a.seq } });
  expect(linkOf(reopened, 'desired')).toMatchObject({ actor: 'bob', correlation_id: 'j1-put-retry' });
});

test('J1 a rollout\'s configuration attempt traces back to its batch and the rollout\'s creation', async () => {
  const a = await agent(3);
  const v = (await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'j1', format: 'text' } })).body.config_version;
  const created = await suite.hub.call('POST', '/api/v1/rollouts', {
    token: TOKENS.operator,
    body: { config_version: v, targets: { nodes: ['edge-3'] } },
    headers: { 'x-correlation-id': 'j1-rollout' },
  });
  expect(created.status).toBe(201);
  const [attempt] = await takeConfigAttempts(a);
  const body = await why(attempt.attempt_id);
  expect(body.intent).toMatchObject({ kind: 'configuration', rollout_id: created.body.rollout_id, config_version: v });
  expect(relations(body)).toEqual(['queued:AttemptQueued', 'opened:IntentOpened', 'batch_started:RolloutBatchStarted', 'rollout_created:RolloutCreated']);
  expect(linkOf(body, 'rollout_created')).toMatchObject({
    stream_id: `rollout:${created.body.rollout_id}`,
    actor: 'bob',
    role: 'operator',
    correlation_id: 'j1-rollout',
    data: { config_version: v, approval_id: null },
  });
  expect(linkOf(body, 'batch_started').data.intents).toEqual([{ node_id: 'edge-3', intent_id: attempt.intent_id }]);
});

test('J1 an approved rollout\'s attempt traces back to the approver and the submitter', async () => {
  const a = await agent(4);
  const v = (await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'j1-approved', format: 'text' } })).body.config_version;
  const submitted = await suite.hub.call('POST', '/api/v1/config-approvals', { token: TOKENS.operator, body: { kind: 'rollout', config_version: v, targets: { nodes: ['edge-4'] } } });
  expect(submitted.status).toBe(201);
  const approved = await suite.hub.call('POST', `/api/v1/config-approvals/${submitted.body.approval_id}/approve`, { token: TOKENS.admin, headers: { 'x-correlation-id': 'j1-approve' } });
  expect(approved.status).toBe(200);
  const [attempt] = await takeConfigAttempts(a);
  const body = await why(attempt.attempt_id);
  expect(relations(body).slice(-3)).toEqual(['rollout_created:RolloutCreated', 'approved:ApprovalApproved', 'submitted:ApprovalSubmitted']);
  expect(linkOf(body, 'approved')).toMatchObject({ actor: 'alice', role: 'admin', correlation_id: 'j1-approve' });
  expect(linkOf(body, 'submitted')).toMatchObject({ actor: 'bob', role: 'operator' });
});

test('J1 GET /attempts/{id}: 404 attempt_not_found, 401 without a token, 403 for an agent', async () => {
  expect((await suite.hub.call('GET', '/api/v1/attempts/at_nope', { token: TOKENS.viewer })).body.code).toBe('attempt_not_found');
  expect((await suite.hub.call('GET', '/api/v1/attempts/at_nope', { token: null })).status).toBe(401);
  const denied = await suite.hub.call('GET', '/api/v1/attempts/at_nope', { token: TOKENS.agent1 });
  expect(denied.status).toBe(403);
  expect(denied.body.code).toBe('forbidden');
});
