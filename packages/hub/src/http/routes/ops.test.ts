import { LABEL_VALUE_PATTERN } from '@fleetplane/core';
import { ok } from '@fleetplane/core';
import { sql } from 'kysely';
import type { Command } from '../../commands/pipeline.ts';
import { counterTotal } from '../../metrics.ts';
import { parseExposition, sampleValue } from '../../../../../test/support/exposition.ts';
import { foreignEvent } from '../../../../../test/support/foreign-events.ts';
import { startTestHub, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';

const suite = hubSuite();

test('/healthz answers without a token', async () => {
  expect(await suite.hub.call('GET', '/healthz', { token: null })).toMatchObject({ status: 200, body: { status: 'ok' } });
});

test('/readyz reports database, migrations and workers', async () => {
  const r = await suite.hub.call('GET', '/readyz', { token: null });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ ready: true, checks: { database: { ok: true }, migrations: { ok: true }, workers: { ok: true } } });
});

test('/metrics exposes Prometheus text with request counts and denials', async () => {
  await suite.hub.call('GET', '/api/v1/nodes', { token: TOKENS.agent1 });
  const r = await suite.hub.call('GET', '/metrics', { token: null });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(r.body).toMatch(/^# TYPE fleetplane_http_requests_total counter$/m);
  expect(r.body).toMatch(/^fleetplane_http_requests_total\{method="GET",route="\/api\/v1\/nodes",status="403"\} 1$/m);
  expect(r.body).toMatch(/^fleetplane_access_denied_total\{route="\/api\/v1\/nodes"\} 1$/m);
  const families = parseExposition(r.body);
  expect(sampleValue(families, 'fleetplane_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/v1/nodes', le: '+Inf' })).toBe(1);
  // A Hub serving plain HTTP has no certificate to expire: no series, rather than a timestamp of 0 (test/tls.test.ts has it).
  expect(r.body).not.toMatch(/fleetplane_tls_certificate_expiry/);
});

test('/metrics counts commands run again, and why', async () => {
  // A stream never at the version the command expects: it runs 8 times, then fails.
  const stale: Command<undefined, null> = {
    name: 'StaleWrite',
    decide: () => ok({ events: [foreignEvent('ops-stale', 'Probed')], expectedVersions: { 'ops-stale': 5 }, result: null }),
  };
  const actor = { principal: 'ops-test', role: 'system' as const, source: 'api' as const, correlationId: 'ops-stale' };
  await expect(suite.hub.context.pipeline.run(actor, stale)).rejects.toThrow(/concurrent change to stream ops-stale/);
  const r = await suite.hub.call('GET', '/metrics', { token: null });
  expect(r.body).toMatch(/^# TYPE fleetplane_command_reruns_total counter$/m);
  expect(r.body).toMatch(/^fleetplane_command_reruns_total\{command="StaleWrite",reason="stream_moved",shared="false"\} 7$/m);
  expect(await counterTotal(suite.hub.context.metrics.commandReruns, { command: 'StaleWrite' })).toBe(7);
  expect(await counterTotal(suite.hub.context.metrics.commandReruns, { command: 'StaleWrite', reason: 'deadlock' })).toBe(0);
});

test('/api/v1/openapi.json documents every route from the zod schemas that validate it', async () => {
  const r = await suite.hub.call('GET', '/api/v1/openapi.json', { token: null });
  expect(r.status).toBe(200);
  expect(r.body.openapi).toBe('3.0.3');
  expect(Object.keys(r.body.paths)).toEqual(
    expect.arrayContaining(['/healthz', '/readyz', '/metrics', '/api/v1/agent/register', '/api/v1/nodes', '/api/v1/nodes/{id}', '/api/v1/nodes/{id}/labels']),
  );
  const labels = r.body.paths['/api/v1/nodes/{id}/labels'].put;
  const schema = labels.requestBody.content['application/json'].schema;
  expect(schema.properties.labels.additionalProperties).toMatchObject({ type: 'string', minLength: 1, maxLength: 63, pattern: LABEL_VALUE_PATTERN });
  // The documented pattern is the rule the Hub applies.
  expect(new RegExp(LABEL_VALUE_PATTERN).test('eu-west.1')).toBe(true);
  expect(new RegExp(LABEL_VALUE_PATTERN).test('a,b')).toBe(false);
  expect(labels.responses['403']).toBeDefined();
  expect(r.body.paths['/api/v1/nodes'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'cursor', 'selector', 'liveness', 'maintenance', 'search']);
});

test('/readyz answers 503 and names the check that fails while a migration is pending; a database migrated ahead of the Hub leaves it ready, saying so', async () => {
  const unready = (detail: unknown) => ({
    status: 503,
    body: { ready: false, checks: { database: { ok: true }, migrations: { ok: false, detail }, workers: { ok: true } } },
  });
  const { rows } = await sql<{ version: number; name: string; checksum: string }>`
    SELECT version, name, checksum FROM schema_migrations ORDER BY version DESC LIMIT 1`.execute(suite.t.db);
  const last = rows[0]!;
  // The latest migration not applied (a database restored from before it)…
  await sql`DELETE FROM schema_migrations WHERE version = ${last.version}`.execute(suite.t.db);
  try {
    expect(await suite.hub.call('GET', '/readyz', { token: null })).toMatchObject(unready('1 pending'));
  } finally {
    await sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (${last.version}, ${last.name}, ${last.checksum})`.execute(suite.t.db);
  }
  // One this Hub does not know (a rolling upgrade migrated the database first): it serves on, ready, until it is
  // replaced, so a load balancer does not take every Hub of the release before out at once.
  await sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'from_a_newer_hub', 'x')`.execute(suite.t.db);
  try {
    expect(await suite.hub.call('GET', '/readyz', { token: null })).toMatchObject({
      status: 200,
      body: { ready: true, checks: { migrations: { ok: true, detail: expect.stringMatching(/migrations this Hub does not know \(9999\).*serves on until it is replaced/) } } },
    });
  } finally {
    await sql`DELETE FROM schema_migrations WHERE version = 9999`.execute(suite.t.db);
  }
  expect((await suite.hub.call('GET', '/readyz', { token: null })).status).toBe(200);
});

test('a Hub that has stopped its workers reports itself not ready', async () => {
  // A Hub of its own: stopping the shared one would leave the other tests of this file nothing to call.
  const stopping = await startTestHub(suite.t.url);
  expect((await stopping.context.ready()).ready).toBe(true);
  await stopping.stop();
  // The pool is closed too, so the database checks fail as well; the workers' check says why it stopped.
  expect(await stopping.context.ready()).toMatchObject({ ready: false, checks: { workers: { ok: false, detail: 'stopped' } } });
});
