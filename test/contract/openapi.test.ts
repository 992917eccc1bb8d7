import SwaggerParser from '@apidevtools/swagger-parser';
import { allRoutes } from '../../packages/hub/src/http/routes/all.ts';
import { answered, breaches, DOCUMENT, holdToContract } from '../support/contract.ts';
import { takeAttempts, TestAgent } from '../support/fleet.ts';
import { testConfig, TOKENS } from '../support/hub.ts';
import { hubSuite } from '../support/hub-suite.ts';

// Issue 22 item 3, a complete contract: the OpenAPI document is valid OpenAPI 3, and every route, called here
// once at least, answers as the document declares. `hub.call` holds each answer to the document
// (test/support/contract.ts), as it does in every other test.

const suite = hubSuite({ config: testConfig(2, { mode: 'configuration' }) });

const operations = Object.values(DOCUMENT.paths).flatMap((ops) => Object.values(ops));

test('issue 22 item 3: the OpenAPI document is valid OpenAPI 3.0 to a validator of the specification', async () => {
  // The validator dereferences the document it is given: a copy keeps DOCUMENT as served.
  await expect(SwaggerParser.validate(structuredClone(DOCUMENT) as never)).resolves.toBeDefined();
  const broken = structuredClone(DOCUMENT) as any;
  delete broken.paths['/healthz'].get.responses['200'].description;
  await expect(SwaggerParser.validate(broken)).rejects.toThrow(/description/);
  expect(operations.length).toBe(allRoutes.length);
  expect(new Set(operations.map((op) => op.operationId)).size).toBe(allRoutes.length);
});

test('issue 22 item 3: an answer outside the document is caught: an undeclared status, code, header or field', () => {
  const headers = (h: Record<string, string>) => new Headers({ 'x-correlation-id': 'c1', 'content-type': 'application/json', ...h });
  const at = { method: 'GET', path: '/api/v1/nodes/edge-1' };
  const envelope = (code: string) => ({ code, message: 'm', correlation_id: 'c1', details: {} });
  const error = (status: number, code: string) => ({ ...at, status, headers: headers({}), body: envelope(code), text: JSON.stringify(envelope(code)) });
  expect(breaches(error(404, 'node_not_found'))).toEqual([]);
  expect(breaches(error(418, 'teapot'))).toEqual([expect.stringMatching(/^status 418 is not declared/)]);
  expect(breaches(error(404, 'stream_not_found'))).toEqual([expect.stringContaining('must be equal to one of the allowed values')]);
  expect(breaches({ ...error(404, 'node_not_found'), headers: headers({ etag: '"1"' }) })).toEqual(['header ETag is not declared']);
  expect(breaches({ ...error(404, 'node_not_found'), headers: new Headers({ 'content-type': 'application/json' }) })).toEqual(['no X-Correlation-Id']);
  // A header declared for one status only: Preference-Applied on a minimal write's 204, not on the whole write's 200.
  const minimal = { method: 'PUT', path: '/api/v1/streams/web', headers: headers({ etag: '"2"', 'preference-applied': 'return=minimal' }), body: '', text: '' };
  expect(breaches({ ...minimal, status: 204, headers: new Headers({ 'x-correlation-id': 'c1', etag: '"2"', 'preference-applied': 'return=minimal' }) })).toEqual([]);
  expect(breaches({ ...minimal, status: 200 })).toContain('header Preference-Applied is not declared');
  const page = { items: [{ node_id: 'edge-1' }], next_cursor: null };
  expect(breaches({ method: 'GET', path: '/api/v1/nodes?limit=1', status: 200, headers: headers({}), body: page, text: JSON.stringify(page) })).toContainEqual(
    expect.stringContaining("must have required property 'labels'"),
  );
  const metrics = '# TYPE x counter\nx 1\n';
  expect(breaches({ method: 'GET', path: '/metrics', status: 200, headers: headers({}), body: metrics, text: metrics })).toEqual([
    'content type application/json, declared text/plain; version=0.0.4',
  ]);
});

test('issue 22 item 3: every route answers as the OpenAPI document declares (each is called; none is left out)', async () => {
  const as = (token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    suite.hub.call(method, path, { token, ...(body !== undefined ? { body } : {}), headers });
  const expectStatus = async (status: number, answer: Promise<{ status: number; body: any; headers: Headers }>) => {
    const r = await answer;
    expect({ status: r.status, body: r.body }).toMatchObject({ status });
    return r;
  };

  // ops
  await expectStatus(200, as(null, 'GET', '/healthz'));
  await expectStatus(200, as(null, 'GET', '/readyz'));
  await expectStatus(200, as(null, 'GET', '/api/v1/openapi.json'));
  // agents: register, report, poll
  const agents = [new TestAgent(suite.hub, 'edge-1'), new TestAgent(suite.hub, 'edge-2')];
  for (const a of agents) {
    await expectStatus(200, a.register());
    await expectStatus(202, a.report());
  }
  await expectStatus(200, agents[0]!.call('GET', '/api/v1/agent/attempts?wait=0'));
  await expectStatus(403, agents[0]!.call('POST', '/api/v1/agent/register', { node_id: 'edge-2', boot_id: 'b' }));
  // nodes and settings
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/nodes?limit=1'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/nodes/edge-1'));
  await expectStatus(404, as(TOKENS.viewer, 'GET', '/api/v1/nodes/nowhere'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/report-rates'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/node-counts?liveness=online'));
  await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/nodes/edge-2/labels', { labels: { env: 'prod' } }));
  await expectStatus(200, as(TOKENS.operator, 'POST', '/api/v1/nodes/edge-2/drain'));
  await expectStatus(200, as(TOKENS.operator, 'POST', '/api/v1/nodes/edge-2/undrain'));
  await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/nodes/edge-2/mode', { mode: 'observe' }));
  await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/nodes/edge-2/mode', { mode: null }));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/settings/reconciliation'));
  await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/settings/reconciliation', { mode: 'configuration' }));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/whoami'));
  await expectStatus(403, as(TOKENS.agent1, 'GET', '/api/v1/whoami'));
  await expectStatus(401, as(null, 'GET', '/api/v1/whoami'));
  // streams, with If-Match and an Idempotency-Key
  const desired = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } };
  const written = await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/streams/web', desired, { 'idempotency-key': 'contract-web' }));
  expect(written.headers.get('etag')).toBe('"1"');
  expect((await expectStatus(200, as(TOKENS.operator, 'PUT', '/api/v1/streams/web', desired, { 'idempotency-key': 'contract-web' }))).headers.get('idempotent-replayed')).toBe('true');
  await expectStatus(409, as(TOKENS.operator, 'PUT', '/api/v1/streams/web', { ...desired, spec: {} }, { 'idempotency-key': 'contract-web' }));
  await expectStatus(412, as(TOKENS.operator, 'PUT', '/api/v1/streams/web', desired, { 'if-match': '"7"' }));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/streams'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/streams/web'));
  const [attempt] = await takeAttempts(agents[0]!, 'web');
  await expectStatus(200, agents[0]!.result(attempt.attempt_id, { outcome: 'succeeded', generation: attempt.generation }));
  await expectStatus(200, as(TOKENS.operator, 'POST', '/api/v1/streams/web/actions', { action: 'restart' }, { 'if-match': '"1"' }));
  await expectStatus(404, as(TOKENS.operator, 'POST', '/api/v1/streams/nothing/actions', { action: 'restart' }));
  // intents, attempts, drift
  const intents = await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/intents?stream_id=web'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/intents/${intents.body.items[0].intent_id}`));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/attempts/${attempt.attempt_id}`));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/drift'));
  // configuration: versions, single-node applies and rollbacks, rollouts, approvals
  const v1 = (await expectStatus(201, as(TOKENS.operator, 'POST', '/api/v1/config-versions', { content: 'one', format: 'text' }))).body.config_version;
  const v2 = (await expectStatus(201, as(TOKENS.operator, 'POST', '/api/v1/config-versions', { content: 'two', format: 'text', parent: v1 }))).body.config_version;
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/config-versions'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/config-versions/${v1}`));
  const cancel = (id: string) => expectStatus(200, as(TOKENS.operator, 'POST', `/api/v1/rollouts/${id}/actions`, { action: 'cancel' }));
  const applied = await expectStatus(201, as(TOKENS.operator, 'POST', '/api/v1/nodes/edge-1/configuration/apply', { config_version: v1 }));
  expect(applied.headers.get('location')).toBe(`/api/v1/rollouts/${applied.body.rollout_id}`);
  await expectStatus(409, as(TOKENS.operator, 'POST', '/api/v1/nodes/edge-1/configuration/apply', { config_version: v2 }));
  await cancel(applied.body.rollout_id);
  await cancel((await expectStatus(201, as(TOKENS.operator, 'POST', '/api/v1/nodes/edge-1/configuration/rollback', { config_version: v1 }))).body.rollout_id);
  const rollout = await expectStatus(201, as(TOKENS.operator, 'POST', '/api/v1/rollouts', { config_version: v2, targets: { selector: { env: 'prod' } }, batch_size: 1 }));
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/rollouts'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/rollouts/${rollout.body.rollout_id}`));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/rollouts/${rollout.body.rollout_id}/summary`));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/rollouts/${rollout.body.rollout_id}/targets?state=applying&limit=1`));
  await cancel(rollout.body.rollout_id);
  await expectStatus(409, as(TOKENS.operator, 'POST', `/api/v1/rollouts/${rollout.body.rollout_id}/actions`, { action: 'pause' }));
  const submit = () => as(TOKENS.operator, 'POST', '/api/v1/config-approvals', { config_version: v2, targets: { nodes: ['edge-2'] }, batch_size: 1 });
  const approval = await expectStatus(201, submit());
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/config-approvals'));
  await expectStatus(200, as(TOKENS.viewer, 'GET', `/api/v1/config-approvals/${approval.body.approval_id}`));
  await expectStatus(200, as(TOKENS.admin, 'POST', `/api/v1/config-approvals/${approval.body.approval_id}/approve`, {}));
  await expectStatus(200, as(TOKENS.admin, 'POST', `/api/v1/config-approvals/${(await expectStatus(201, submit())).body.approval_id}/reject`, { reason: 'not now' }));
  // the event log, listed and followed (server-sent events, resumed from Last-Event-ID)
  const events = await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/events?limit=2'));
  const following = new AbortController();
  const path = '/api/v1/events/stream?stream_id=stream:web';
  const res = await fetch(suite.hub.url + path, {
    headers: { authorization: `Bearer ${TOKENS.viewer}`, 'last-event-id': events.body.items[0].cursor },
    signal: following.signal,
  });
  const first = await res.body!.getReader().read();
  following.abort();
  const text = new TextDecoder().decode(first.value);
  // It opens with the cursor it follows from, as an id a client resumes from even before any event came.
  expect(text).toMatch(new RegExp(`^: following from ${events.body.items[0].cursor}\nid: ${events.body.items[0].cursor}\n\n`));
  holdToContract({ method: 'GET', path, status: res.status, headers: res.headers, text, body: text });
  // single sign-on: this Hub trusts no issuer (test/oidc.test.ts signs in through a real one)
  expect((await expectStatus(200, as(null, 'GET', '/api/v1/auth/providers'))).body).toEqual({ providers: [] });
  await expectStatus(404, as(null, 'POST', '/api/v1/auth/token', { provider: 'none', code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: 'http://localhost/' }));
  // deleting a stream, retiring a node
  await expectStatus(200, as(TOKENS.viewer, 'GET', '/api/v1/settings/approvals'));
  const deleting = await expectStatus(202, as(TOKENS.operator, 'DELETE', '/api/v1/streams/web'));
  expect(deleting.headers.get('etag')).toBe(`"${deleting.body.generation}"`);
  await expectStatus(200, as(TOKENS.operator, 'DELETE', '/api/v1/nodes/edge-2?force=true'));
  await expectStatus(403, agents[1]!.report());
  // Prometheus metrics last: their text is what every call above counted.
  expect((await expectStatus(200, as(null, 'GET', '/metrics'))).body).toMatch(/^# TYPE /m);

  // Each route answered here at least once, as declared: a success, but for the code exchange, which needs an issuer.
  const uncovered = operations.filter((op) => ![...answered].some((a) => a.startsWith(`${op.operationId} `))).map((op) => op.operationId);
  expect(uncovered).toEqual([]);
});
