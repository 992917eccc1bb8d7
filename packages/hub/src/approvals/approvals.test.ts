import { Writable } from 'node:stream';
import { sql } from 'kysely';
import winston from 'winston';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { ConfigFile } from '../config.ts';
import { startHub } from '../hub.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { createRollout } from '../rollouts/create-rollout.ts';
import { expireApproval } from './expire-approval.ts';

// SPEC H: the two-person approval gate. Two real admins (alice, carol), an operator (bob) and a viewer.
// `gated` has control_api.approval_required on; `open` is a second Hub on the same database with it off.

const TTL_MS = 3_600_000;
let t: TestDatabase;
let gated: TestHub;
let open: TestHub;
let skew = 0;
const clock = { now: () => new Date(Date.now() + skew) };
beforeAll(async () => {
  t = await createTestDatabase();
  gated = await startTestHub(t.url, { config: testConfig(26, { mode: 'configuration' }, { approval_required: true, approval_ttl_ms: TTL_MS }), clock });
  open = await startTestHub(t.url, { config: testConfig(26, { mode: 'configuration' }), clock });
});
afterAll(async () => {
  await gated.stop();
  await open.stop();
  await t.drop();
});

type Who = keyof typeof TOKENS;
const as = (who: Who, method: string, path: string, body?: unknown) => gated.call(method, path, { token: TOKENS[who], ...(body !== undefined ? { body } : {}) });
const count = async (query: ReturnType<typeof sql<{ n: string }>>) => Number((await query.execute(t.db)).rows[0]!.n);
const rolloutsOf = (approvalId: string) => count(sql<{ n: string }>`SELECT count(*) n FROM rollouts WHERE approval_id = ${approvalId}`);
const allRollouts = () => count(sql<{ n: string }>`SELECT count(*) n FROM rollouts`);

async function version(content: string): Promise<string> {
  return (await as('operator', 'POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
}

async function node(n: number, labels?: Record<string, string>): Promise<TestAgent> {
  const a = new TestAgent(gated, `edge-${n}`);
  await a.register();
  await a.report();
  if (labels) await as('operator', 'PUT', `/api/v1/nodes/edge-${n}/labels`, { labels });
  return a;
}

async function submit(who: Who, body: Record<string, unknown>) {
  const r = await as(who, 'POST', '/api/v1/config-approvals', body);
  expect(r.status).toBe(201);
  return r.body;
}

test('H1 with the gate off, direct creation works', async () => {
  await node(1);
  const v = await version('h1');
  const r = await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: v, targets: { nodes: ['edge-1'] } } });
  expect(r).toMatchObject({ status: 201, body: { approval_id: null, created_by: 'bob' } });
});

test('H2 GET /settings/approvals says whether the gate is on, so a client can say so before a change is sent', async () => {
  expect(await gated.call('GET', '/api/v1/settings/approvals', { token: TOKENS.viewer })).toMatchObject({ status: 200, body: { approval_required: true, approval_ttl_ms: TTL_MS } });
  expect((await open.call('GET', '/api/v1/settings/approvals', { token: TOKENS.viewer })).body).toEqual({ approval_required: false, approval_ttl_ms: 86_400_000 });
  expect((await gated.call('GET', '/api/v1/settings/approvals', { token: null })).status).toBe(401);
});

test('H2 with the gate on, every creation path is refused with approval_required naming the approval flow, and audited', async () => {
  await node(2);
  const v = await version('h2');
  const before = await allRollouts();
  const denials = () => count(sql<{ n: string }>`SELECT count(*) n FROM events WHERE type = 'AccessDenied' AND data->>'reason' = 'approval_required'`);
  const denied = await denials();
  const paths: Array<[string, unknown]> = [
    ['/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-2'] } }],
    ['/api/v1/nodes/edge-2/configuration/apply', { config_version: v }],
    ['/api/v1/nodes/edge-2/configuration/rollback', { config_version: v }],
  ];
  for (const [path, body] of paths) {
    const r = await as('admin', 'POST', path, body);
    expect(r).toMatchObject({ status: 403, body: { code: 'approval_required', details: { approval_route: 'POST /api/v1/config-approvals' } } });
    expect(r.body.message).toMatch(/submit it as an approval request/);
  }
  // A rollout's rollback to a version never applied is new content too.
  const live = (await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: v, targets: { nodes: ['edge-2'] } } })).body.rollout_id;
  const other = await version('h2-other');
  expect((await as('operator', 'POST', `/api/v1/rollouts/${live}/actions`, { action: 'rollback', config_version: other })).body.code).toBe('approval_required');
  expect(await allRollouts()).toBe(before + 1);
  expect(await denials()).toBe(denied + 4);
});

test('H3 F4 a request validates version and targets, resolves and pins the selector, and creates no rollout', async () => {
  await node(3, { h3: 'edge' });
  await node(4, { h3: 'edge' });
  await node(5);
  const v = await version('h3');
  const before = await allRollouts();
  expect((await as('operator', 'POST', '/api/v1/config-approvals', { config_version: 'cv_nope', targets: { nodes: ['edge-3'] } })).body.code).toBe('config_version_not_found');
  expect((await as('operator', 'POST', '/api/v1/config-approvals', { config_version: v, targets: { selector: { h3: 'none' } } })).body.code).toBe('no_matching_nodes');
  expect((await as('operator', 'POST', '/api/v1/config-approvals', { config_version: v, targets: { nodes: ['edge-3'], selector: { h3: 'edge' } } })).status).toBe(400);
  // G4 I13: an apply is the node-level apply, of one named node (its intents go through a recovery hold, a rollout's
  // batches never do); proposed for a selector or several nodes it is refused, and nothing is submitted.
  const requests = await count(sql<{ n: string }>`SELECT count(*) n FROM config_approvals`);
  for (const targets of [{ selector: { h3: 'edge' } }, { nodes: ['edge-3', 'edge-4'] }]) {
    expect(await as('operator', 'POST', '/api/v1/config-approvals', { kind: 'apply', config_version: v, targets })).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', details: { issues: [{ path: 'targets', message: expect.stringMatching(/^an apply names exactly one node/) }] } },
    });
  }
  expect(await count(sql<{ n: string }>`SELECT count(*) n FROM config_approvals`)).toBe(requests);
  const request = await submit('operator', { config_version: v, targets: { selector: { h3: 'edge' } }, batch_size: 2 });
  expect(request).toMatchObject({ status: 'pending', kind: 'rollout', nodes: ['edge-3', 'edge-4'], batch_size: 2, submitted_by: 'bob', rollout_id: null, selector: { h3: 'edge' } });
  expect(new Date(request.expires_at).getTime() - new Date(request.created_at).getTime()).toBeGreaterThanOrEqual(TTL_MS - 1000);
  expect(await allRollouts()).toBe(before);
  // Labelled after submission: not added. The rollout targets exactly the pinned nodes.
  await as('operator', 'PUT', '/api/v1/nodes/edge-5/labels', { labels: { h3: 'edge' } });
  const approved = await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
  expect(approved.status).toBe(200);
  const rollout = (await as('viewer', 'GET', `/api/v1/rollouts/${approved.body.rollout_id}`)).body;
  expect(rollout.targets.map((x: any) => x.node_id)).toEqual(['edge-3', 'edge-4']);
  expect(rollout.batch_size).toBe(2);
  // Issue 22: the rollout carries the selector its request resolved, in its view and in its RolloutCreated event.
  expect(rollout.selector).toEqual({ h3: 'edge' });
  const [created] = (await sql<{ selector: unknown }>`SELECT data->'selector' AS selector FROM events WHERE type = 'RolloutCreated' AND data->>'rollout_id' = ${rollout.rollout_id}`.execute(t.db)).rows;
  expect(created!.selector).toEqual({ h3: 'edge' });
});

test('F3 a request by a selector of several pairs pins the nodes that carry every pair, and only those', async () => {
  await node(16, { f3env: 'prod', f3tier: 'edge' });
  await node(17, { f3env: 'prod', f3tier: 'edge', zone: 'b' });
  await node(18, { f3env: 'prod', f3tier: 'core' });
  await node(19, { f3env: 'staging', f3tier: 'edge' });
  await node(20, { f3env: 'prod' });
  const request = await submit('operator', { config_version: await version('f3-pairs'), targets: { selector: { f3env: 'prod', f3tier: 'edge' } } });
  expect(request).toMatchObject({ status: 'pending', selector: { f3env: 'prod', f3tier: 'edge' }, nodes: ['edge-16', 'edge-17'] });
});

test('H4 approve and reject need the admin role: an operator and a viewer get 403', async () => {
  await node(6);
  const request = await submit('operator', { config_version: await version('h4'), targets: { nodes: ['edge-6'] } });
  for (const who of ['operator', 'viewer'] as const) {
    for (const decision of ['approve', 'reject']) {
      expect(await as(who, 'POST', `/api/v1/config-approvals/${request.approval_id}/${decision}`, {})).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    }
  }
  expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status).toBe('pending');
});

test('H5 the submitter cannot approve or reject its own request, even as admin', async () => {
  await node(7);
  const request = await submit('admin', { config_version: await version('h5'), targets: { nodes: ['edge-7'] } });
  for (const decision of ['approve', 'reject']) {
    expect(await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/${decision}`, {})).toMatchObject({ status: 403, body: { code: 'self_approval_forbidden' } });
  }
  expect(await rolloutsOf(request.approval_id)).toBe(0);
  expect((await as('admin2', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`)).body.status).toBe('approved');
});

test('H6 approval creates the rollout with the approver as its recorded actor', async () => {
  const agent = await node(8);
  const request = await submit('operator', { config_version: await version('h6'), targets: { nodes: ['edge-8'] } });
  const approved = await as('admin2', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
  expect(approved.body).toMatchObject({ status: 'approved', decided_by: 'carol', rollout_id: expect.any(String) });
  const rollout = (await as('viewer', 'GET', `/api/v1/rollouts/${approved.body.rollout_id}`)).body;
  expect(rollout).toMatchObject({ created_by: 'carol', approval_id: request.approval_id, state: 'applying' });
  const actors = await sql<{ type: string; actor: string }>`SELECT type, metadata->>'actor' actor FROM events
    WHERE stream_id IN (${`approval:${request.approval_id}`}, ${`rollout:${rollout.rollout_id}`}) ORDER BY position`.execute(t.db);
  expect(actors.rows).toEqual([
    { type: 'ApprovalSubmitted', actor: 'bob' },
    { type: 'ApprovalApproved', actor: 'carol' },
    { type: 'RolloutCreated', actor: 'carol' },
    { type: 'RolloutBatchStarted', actor: 'carol' },
  ]);
  const [attempt] = await takeConfigAttempts(agent);
  expect(attempt.config_version).toBe(rollout.config_version);
});

test('H6 F4 approving a request whose pinned node was retired since is refused 422 unknown_nodes: nothing is created, the request stays pending', async () => {
  await node(18);
  await node(19);
  const request = await submit('operator', { config_version: await version('h6-retired'), targets: { nodes: ['edge-18', 'edge-19'] } });
  expect((await as('operator', 'DELETE', '/api/v1/nodes/edge-19')).status).toBe(200);
  const refused = await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
  expect(refused).toMatchObject({ status: 422, body: { code: 'unknown_nodes', details: { nodes: ['edge-19'] } } });
  expect(refused.body.message).toMatch(/retired since it was submitted: reject it and submit the request again/);
  expect(await rolloutsOf(request.approval_id)).toBe(0);
  expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body).toMatchObject({ status: 'pending' });
});

test('H7 rejected and expired requests are terminal; republishing is a new request that names the rejected one', async () => {
  await node(9);
  const v = await version('h7');
  const request = await submit('operator', { config_version: v, targets: { nodes: ['edge-9'] }, batch_size: 1 });
  const rejected = await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/reject`, { reason: 'wrong window' });
  expect(rejected.body).toMatchObject({ status: 'rejected', decided_by: 'alice', reason: 'wrong window' });
  expect(await as('admin2', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`)).toMatchObject({ status: 409, body: { code: 'approval_not_pending' } });
  const again = await submit('operator', { config_version: v, targets: { nodes: request.nodes }, batch_size: request.batch_size, republished_from: request.approval_id });
  expect(again).toMatchObject({ status: 'pending', republished_from: request.approval_id });
  expect(again.approval_id).not.toBe(request.approval_id);
  expect((await as('operator', 'POST', '/api/v1/config-approvals', { config_version: v, targets: { nodes: ['edge-9'] }, republished_from: again.approval_id })).body.code).toBe(
    'approval_not_republishable',
  );

  // Past its time, a pending request expires: by its job, or when someone tries to decide it.
  skew = TTL_MS + 1000;
  try {
    const decided = await as('admin', 'POST', `/api/v1/config-approvals/${again.approval_id}/approve`);
    expect(decided).toMatchObject({ status: 409, body: { code: 'approval_not_pending' } });
    expect((await as('viewer', 'GET', `/api/v1/config-approvals/${again.approval_id}`)).body.status).toBe('expired');
    const third = await submit('operator', { config_version: v, targets: { nodes: ['edge-9'] } });
    skew += TTL_MS;
    const job = await gated.context.pipeline.run({ principal: 'hub', role: 'system', source: 'worker', correlationId: 'test' }, expireApproval(third.approval_id));
    expect(job.ok && job.value.result).toEqual({ expired: true });
    expect((await as('viewer', 'GET', `/api/v1/config-approvals/${third.approval_id}`)).body.status).toBe('expired');
  } finally {
    skew = 0;
  }
  expect(await rolloutsOf(again.approval_id)).toBe(0);
});

test('H7 an expiry job that comes before its time arms another; a request past its time republishes even before its job ran', async () => {
  await node(15);
  const v = await version('h7-early');
  const request = await submit('operator', { config_version: v, targets: { nodes: ['edge-15'] } });
  const jobs = () => count(sql<{ n: string }>`SELECT count(*) n FROM pgboss.job WHERE name = 'approval-expiry' AND data->>'approval_id' = ${request.approval_id}`);
  const armed = await jobs();
  // The job runs early (the database's clock ahead of this Hub's): nothing expires, and another job waits.
  const early = await gated.context.pipeline.run({ principal: 'hub', role: 'system', source: 'worker', correlationId: 'test' }, expireApproval(request.approval_id));
  expect(early.ok && early.value.result).toEqual({ expired: false });
  expect(await jobs()).toBe(armed + 1);
  expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status).toBe('pending');
  // Past its time, before any job ran: republishing records the expiry and submits anew.
  skew = TTL_MS + 1000;
  try {
    const again = await submit('operator', { config_version: v, targets: { nodes: ['edge-15'] }, republished_from: request.approval_id });
    expect(again).toMatchObject({ status: 'pending', republished_from: request.approval_id });
    expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status).toBe('expired');
  } finally {
    skew = 0;
  }
});

test('H7 a pending request whose expiry job was lost (it failed every retry while the database was away) is expired by the sweep, once', async () => {
  await node(16);
  const request = await submit('operator', { config_version: await version('h7-lost-job'), targets: { nodes: ['edge-16'] } });
  await sql`DELETE FROM pgboss.job WHERE name = 'approval-expiry' AND data->>'approval_id' = ${request.approval_id}`.execute(t.db);
  const sweeping = await startTestHub(t.url, { config: testConfig(26, { mode: 'configuration' }, { approval_required: true, approval_ttl_ms: TTL_MS }), clock, approvalSweepEveryMs: 200 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500)); // sweeps before its time change nothing
    expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status).toBe('pending');
    skew = TTL_MS + 1000;
    await eventually(async () => ((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status === 'expired' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const expired = sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = ${'approval:' + request.approval_id} AND type = 'ApprovalExpired'`;
    expect(await count(expired)).toBe(1);
  } finally {
    skew = 0;
    await sweeping.stop();
  }
});

test('H8 concurrent approvals by two admins yield one rollout; a repeated approval answers with it', async () => {
  await node(10);
  const request = await submit('operator', { config_version: await version('h8'), targets: { nodes: ['edge-10'] } });
  const both = await Promise.all([
    as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`),
    as('admin2', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`),
  ]);
  expect(both.map((r) => r.status)).toEqual([200, 200]);
  expect(new Set(both.map((r) => r.body.rollout_id)).size).toBe(1);
  const repeated = await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
  expect(repeated.body.rollout_id).toBe(both[0]!.body.rollout_id);
  expect(await rolloutsOf(request.approval_id)).toBe(1);
});

test('H8 a crash between creating the rollout and recording the approval leaves neither; the retry makes exactly one', async () => {
  await node(11);
  const request = await submit('operator', { config_version: await version('h8-crash'), targets: { nodes: ['edge-11'] } });
  // Fails the first COMMIT that has inserted this request's rollout row: after the rollout, before the end.
  // A sequence counts the tries, because a rolled-back transaction cannot undo it.
  await sql`CREATE SEQUENCE crash_once_tries`.execute(t.db);
  await sql`CREATE FUNCTION crash_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.approval_id = ${sql.lit(request.approval_id)} AND nextval('crash_once_tries') = 1 THEN
        RAISE EXCEPTION 'injected crash';
      END IF;
      RETURN NULL;
    END $$`.execute(t.db);
  await sql`CREATE CONSTRAINT TRIGGER crash_once AFTER INSERT ON rollouts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION crash_once()`.execute(t.db);
  try {
    expect((await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`)).status).toBe(500);
    expect(await rolloutsOf(request.approval_id)).toBe(0);
    expect((await as('viewer', 'GET', `/api/v1/config-approvals/${request.approval_id}`)).body.status).toBe('pending');
    const retried = await as('admin', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
    expect(retried.body.status).toBe('approved');
    expect(await rolloutsOf(request.approval_id)).toBe(1);
  } finally {
    await sql`DROP TRIGGER crash_once ON rollouts`.execute(t.db);
  }
});

test('H8 a rollout already carrying the request is adopted, not duplicated', async () => {
  await node(12);
  const v = await version('h8-adopt');
  const request = await submit('operator', { config_version: v, targets: { nodes: ['edge-12'] } });
  // As an interrupted approval would have left it: the request's rollout exists, the request is still pending.
  const made = await gated.context.pipeline.run(
    { principal: 'carol', role: 'admin', source: 'api', correlationId: 'adopt' },
    createRollout({ kind: 'rollout', configVersion: v, targets: { nodes: ['edge-12'] }, batchSize: 1, approvalId: request.approval_id }, true),
  );
  expect(made.ok).toBe(true);
  const approved = await as('admin2', 'POST', `/api/v1/config-approvals/${request.approval_id}/approve`);
  expect(approved.body).toMatchObject({ status: 'approved', rollout_id: made.ok ? made.value.result.rolloutId : null });
  expect(await rolloutsOf(request.approval_id)).toBe(1);
});

test('H9 a rollback is exempt only when its version was applied before on every affected node', async () => {
  const a13 = await node(13);
  await node(14);
  const [old, fresh] = [await version('h9-old'), await version('h9-new')];
  // edge-13 ran `old` before; edge-14 never did.
  const applied = (await open.call('POST', '/api/v1/nodes/edge-13/configuration/apply', { token: TOKENS.operator, body: { config_version: old } })).body.rollout_id;
  const [attempt] = await takeConfigAttempts(a13);
  a13.apply(attempt);
  await a13.report();
  await eventually(async () => ((await as('viewer', 'GET', `/api/v1/rollouts/${applied}`)).body.state === 'converged' ? true : undefined));
  const rolled = await as('operator', 'POST', '/api/v1/nodes/edge-13/configuration/rollback', { config_version: old });
  expect(rolled).toMatchObject({ status: 201, body: { kind: 'rollback', config_version: old, approval_id: null } });
  expect((await as('operator', 'POST', '/api/v1/nodes/edge-14/configuration/rollback', { config_version: old })).body.code).toBe('approval_required');
  expect((await as('operator', 'POST', '/api/v1/nodes/edge-14/configuration/apply', { config_version: old })).body.code).toBe('approval_required');
  // A rollout's rollback covers all its targets: one of them never ran `old`, so it needs approval.
  await as('operator', 'POST', `/api/v1/rollouts/${rolled.body.rollout_id}/actions`, { action: 'cancel' });
  const both = (await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: fresh, targets: { nodes: ['edge-13', 'edge-14'] }, batch_size: 2 } })).body.rollout_id;
  expect((await as('operator', 'POST', `/api/v1/rollouts/${both}/actions`, { action: 'rollback', config_version: old })).body.code).toBe('approval_required');
});

test('H9 G6 a rollback to a version is judged on the nodes the rollout changed: a batch it never started, whose node never ran the version, needs no approval', async () => {
  const a22 = await node(22);
  await node(23);
  const [old, fresh] = [await version('h9-stopped-old'), await version('h9-stopped-new')];
  // edge-22 ran `old` before; edge-23 never did, and the rollout stops before its batch.
  const applied = (await open.call('POST', '/api/v1/nodes/edge-22/configuration/apply', { token: TOKENS.operator, body: { config_version: old } })).body.rollout_id;
  const [attempt] = await takeConfigAttempts(a22);
  a22.apply(attempt);
  await a22.report();
  await eventually(async () => ((await as('viewer', 'GET', `/api/v1/rollouts/${applied}`)).body.state === 'converged' ? true : undefined));
  const stopped = (await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: fresh, targets: { nodes: ['edge-22', 'edge-23'] }, batch_size: 1 } })).body.rollout_id;
  expect((await as('operator', 'POST', `/api/v1/rollouts/${stopped}/actions`, { action: 'pause' })).status).toBe(200);
  const back = await as('operator', 'POST', `/api/v1/rollouts/${stopped}/actions`, { action: 'rollback', config_version: old });
  expect(back).toMatchObject({ status: 201, body: { kind: 'rollback', approval_id: null, targets: [{ node_id: 'edge-22' }] } });
});

test('H9 G2 a cancelled rollout\'s rollback to a version passes the gate as a converged one\'s does: exempt only when the nodes it changed ran the version before', async () => {
  const [a24, a25] = [await node(24), await node(25)];
  const [old, fresh, never] = [await version('h9-cancelled-old'), await version('h9-cancelled-new'), await version('h9-cancelled-never')];
  const converge = async (a: TestAgent, id: string) => {
    const [attempt] = await takeConfigAttempts(a);
    a.apply(attempt);
    await a.report();
    await eventually(async () => ((await as('viewer', 'GET', `/api/v1/rollouts/${id}`)).body.targets.find((x: any) => x.node_id === a.nodeId)?.state === 'converged' ? true : undefined));
  };
  for (const a of [a24, a25]) {
    await converge(a, (await open.call('POST', `/api/v1/nodes/${a.nodeId}/configuration/apply`, { token: TOKENS.operator, body: { config_version: old } })).body.rollout_id);
  }
  // edge-24 moves to the new version; the rollout is cancelled while edge-25's batch applies (its apply may have run).
  const cancelled = (await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: fresh, targets: { nodes: ['edge-24', 'edge-25'] }, batch_size: 1 } })).body.rollout_id;
  await converge(a24, cancelled);
  await eventually(async () => ((await as('viewer', 'GET', `/api/v1/rollouts/${cancelled}`)).body.targets[1].state === 'applying' ? true : undefined));
  expect((await as('operator', 'POST', `/api/v1/rollouts/${cancelled}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
  expect(await as('operator', 'POST', `/api/v1/rollouts/${cancelled}/actions`, { action: 'rollback', config_version: never })).toMatchObject({ status: 403, body: { code: 'approval_required' } });
  const back = await as('operator', 'POST', `/api/v1/rollouts/${cancelled}/actions`, { action: 'rollback', config_version: old });
  expect(back).toMatchObject({ status: 201, body: { kind: 'rollback', approval_id: null, rollback_of: cancelled, targets: [{ node_id: 'edge-24' }, { node_id: 'edge-25' }] } });
});

test('H9 G6 a rollback to a version of a rollout with no target left (its node retired) is 422 no_matching_nodes, not sent to the approval flow', async () => {
  await node(20);
  const v = await version('h9-retired');
  const created = await open.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: v, targets: { nodes: ['edge-20'] } } });
  expect(created.status).toBe(201);
  expect((await as('operator', 'DELETE', '/api/v1/nodes/edge-20?force=true')).status).toBe(200);
  const back = await as('operator', 'POST', `/api/v1/rollouts/${created.body.rollout_id}/actions`, { action: 'rollback', config_version: await version('h9-retired-back') });
  expect(back).toMatchObject({ status: 422, body: { code: 'no_matching_nodes', details: { rollout_id: created.body.rollout_id } } });
});

test('H10 a gate with a single identity able to approve logs a warning at start', async () => {
  const lines: string[] = [];
  const logger = winston.createLogger({
    level: 'warn',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream: new Writable({ write: (chunk, _e, done) => (lines.push(String(chunk)), done()) }) })],
  });
  const single = testConfig(0, {}, { approval_required: true });
  single.file = ConfigFile.parse({ control_api: { approval_required: true, credentials: single.file.control_api.credentials.filter((c) => c.id !== 'carol') } });
  // A database of its own: these Hubs must not take, and wait at stop for, the jobs of the file's Hub.
  const own = await createTestDatabase();
  try {
    const hub = await startHub({ config: single, databaseUrl: own.url, port: 0, logger, sweepEveryMs: 3_600_000 });
    await hub.stop();
    expect(lines.some((l) => /approval_required is on but only 1 identity can approve \(alice\)/.test(l))).toBe(true);
    lines.length = 0;
    const two = await startHub({ config: testConfig(0, {}, { approval_required: true }), databaseUrl: own.url, port: 0, logger, sweepEveryMs: 3_600_000 });
    await two.stop();
    expect(lines.filter((l) => /identity can approve/.test(l))).toEqual([]);
  } finally {
    await own.drop();
  }
});

test('J3 approval requests rebuild exactly from the log', async () => {
  // Requests of its own, one approved, one rejected and one pending, beside whatever the other tests left.
  await node(21);
  const v = await version('j3');
  const [approved, rejected, pending] = [
    await submit('operator', { config_version: v, targets: { nodes: ['edge-21'] } }),
    await submit('operator', { config_version: v, targets: { nodes: ['edge-21'] } }),
    await submit('operator', { config_version: v, targets: { nodes: ['edge-21'] } }),
  ];
  expect((await as('admin', 'POST', `/api/v1/config-approvals/${approved.approval_id}/approve`)).body.status).toBe('approved');
  expect((await as('admin', 'POST', `/api/v1/config-approvals/${rejected.approval_id}/reject`, { reason: 'j3' })).body.status).toBe('rejected');
  expect((await as('viewer', 'GET', `/api/v1/config-approvals/${pending.approval_id}`)).body.status).toBe('pending');
  expect(await verifyProjections(t.db, allProjections)).toEqual([]);
});
