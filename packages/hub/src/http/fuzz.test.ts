import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { takeAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { operationsOf, requestsFor, sweepFor, type Fleet, type FuzzRequest, type Operation } from '../../../../test/support/fuzz/requests.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { rawRequest, type RawAnswer } from '../../../../test/support/raw-http.ts';
import { allRoutes } from './routes/all.ts';

// The defect 3 as a property, over every route of the OpenAPI document the Hub serves: requests
// derived from each operation's parameters and body schema, most of them malformed, never get a 5xx; every
// error is the error envelope; a refused request writes nothing (a 403, or an audited 404, writes its one
// AccessDenied event); and what the Hub cannot hold exactly (unstorable text, a "__proto__" key, nesting
// beyond 64 levels) is never answered 2xx. FLEETPLANE_FUZZ_RUNS sets the requests per route (a longer run),
// FLEETPLANE_FUZZ_SEED explores other seeds.

const RUNS = Number(process.env.FLEETPLANE_FUZZ_RUNS ?? 40);
const SEED = Number(process.env.FLEETPLANE_FUZZ_SEED ?? 20261201);
// A long poll and an event stream hold their answer: after this long, or a stream's headers, the request is dropped.
const HELD = new Set(['/api/v1/agent/attempts', '/api/v1/events/stream']);
const HOLD_MS = 300;
// A safety net, not a goal: a route's sweep (at most ~300 requests) and its runs, each held at the most.
const TIMEOUT_MS = 30_000 + (300 + RUNS) * HOLD_MS;

let t: TestDatabase;
let hub: TestHub;
let operations: Operation[];
let fleet: Fleet;
let sent = 0;
/** Requests per operation, by status class. */
const tally = new Map<string, { requests: number; ok: number; refused: number; held: number; server: number }>();

beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2, { mode: 'lifecycle' }) });
  const agents = [new TestAgent(hub, 'edge-1'), new TestAgent(hub, 'edge-2')];
  for (const a of agents) {
    await a.register();
    await a.report();
  }
  await hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'prod' } } });
  const version = (await hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'fuzz', format: 'text' } })).body.config_version as string;
  await hub.call('PUT', '/api/v1/streams/fuzz-web', { token: TOKENS.operator, body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } } });
  const [attempt] = await takeAttempts(agents[0]!, 'fuzz-web');
  const rollout = (await hub.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: version, targets: { nodes: ['edge-2'] } } })).body.rollout_id as string;
  const approval = (await hub.call('POST', '/api/v1/config-approvals', { token: TOKENS.operator, body: { config_version: version, targets: { nodes: ['edge-2'] } } })).body.approval_id as string;
  for (const id of [version, attempt.attempt_id, rollout, approval]) expect(typeof id).toBe('string');
  const ids = {
    nodes: ['edge-1', 'edge-2'],
    streams: ['fuzz-web'],
    intents: [attempt.intent_id as string],
    attempts: [attempt.attempt_id as string],
    'config-versions': [version],
    rollouts: [rollout],
    'config-approvals': [approval],
  };
  const pick = (...values: unknown[]) => fc.constantFrom(...values);
  fleet = {
    ids,
    hints: {
      node_id: pick('edge-1', 'edge-2'),
      node: pick('edge-1'),
      nodes: pick(['edge-1'], ['edge-2'], ['edge-1', 'edge-2']),
      boot_id: pick(agents[0]!.bootId),
      stream_id: pick('fuzz-web'),
      stream: pick('fuzz-web'),
      config_version: pick(version),
      targets: pick({ nodes: ['edge-1'] }, { selector: { env: 'prod' } }),
      parent: pick(version),
      rollout_id: pick(rollout),
      generation: pick(1),
      report_seq: pick(1_000_000),
      wait: pick(0),
      actor: pick('bob', 'edge-1-agent'),
    },
    tokens(access) {
      switch (access) {
        case 'public':
          return { admitted: null, refused: null };
        case 'agent':
          return { admitted: TOKENS.agent1, refused: TOKENS.admin };
        case 'viewer':
          return { admitted: TOKENS.viewer, refused: TOKENS.agent1 };
        case 'operator':
          return { admitted: TOKENS.operator, refused: TOKENS.viewer };
        default:
          return { admitted: TOKENS.admin, refused: TOKENS.operator };
      }
    },
  };
  const doc = await hub.call('GET', '/api/v1/openapi.json', { token: null });
  operations = operationsOf(doc.body);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
  // What the routes fuzzed in this run were sent and answered (each route's test asserted its own).
  const lines = [...tally].map(([name, c]) => `${name.padEnd(52)} ${String(c.requests).padStart(5)} ${String(c.ok).padStart(5)} ${String(c.refused).padStart(5)} ${String(c.held).padStart(5)} ${String(c.server).padStart(4)}`);
  const total = [...tally.values()].reduce((sum, c) => sum + c.requests, 0);
  const server = [...tally.values()].reduce((sum, c) => sum + c.server, 0);
  if (tally.size > 0) process.stdout.write(`\nHTTP fuzz (seed ${SEED}, ${RUNS} requests per route): ${total} requests over ${tally.size} routes, ${server} answered 5xx\n${'route'.padEnd(52)}  sent   2xx   4xx  held  5xx\n${lines.join('\n')}\n`);
});

const send = (r: FuzzRequest, op: Operation): Promise<RawAnswer> =>
  rawRequest(hub.url, {
    method: r.method,
    path: r.path,
    headers: r.headers,
    ...(r.body !== undefined ? { body: r.body } : {}),
    chunked: r.chunked,
    ...(HELD.has(op.path) ? { holdMs: HOLD_MS } : {}),
  });

const ENVELOPE = { code: expect.any(String), message: expect.any(String), correlation_id: expect.any(String), details: expect.any(Object) };

test('the OpenAPI document describes every route the Hub serves', () => {
  expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(allRoutes.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort());
});

describe.each(allRoutes.map((r, i) => [`${r.method.toUpperCase()} ${r.path}`, i] as const))('defect 3 fuzz: %s', (name, index) => {
  test('never a 5xx; every error is the envelope; a refused request writes nothing, not even its Idempotency-Key; what the Hub cannot hold is never taken', async () => {
    const op = operations.find((o) => `${o.method} ${o.path.replace(/\{(\w+)\}/g, ':$1')}` === name)!;
    const counts = { requests: 0, ok: 0, refused: 0, held: 0, server: 0 };
    tally.set(name, counts);
    const refused = new Map<string, { status: number; summary: string }>();
    /** The status each request with a unique Idempotency-Key was answered with. */
    const keyAnswers = new Map<string, number>();
    const verify = async (r: FuzzRequest) => {
      const answer = await send(r, op);
      counts.requests += 1;
      const key = r.headers['idempotency-key'];
      if (key?.startsWith('fuzz-key-')) keyAnswers.set(key, answer.status);
      const why = `${r.summary} → ${answer.status} ${answer.text.slice(0, 300)}`;
      if (answer.held) {
        counts.held += 1;
        expect([why, answer.status]).toEqual([why, answer.status === 0 ? 0 : 200]);
        return;
      }
      if (answer.status >= 500) counts.server += 1;
      expect([why, answer.status < 500]).toEqual([why, true]);
      if (answer.status < 400) {
        counts.ok += 1;
        expect([why, r.mustRefuse]).toEqual([why, null]);
        return;
      }
      counts.refused += 1;
      expect([why, answer.json]).toEqual([why, ENVELOPE]);
      expect(Object.keys(answer.json).sort()).toEqual(['code', 'correlation_id', 'details', 'message']);
      expect(answer.headers['x-correlation-id']).toBe(answer.json.correlation_id);
      refused.set(answer.json.correlation_id, { status: answer.status, summary: why });
    };
    const next = () => ++sent;
    const def = allRoutes[index]!;
    const swept = sweepFor(op, fleet, next, SEED + index, (body) => def.body?.safeParse(body).success === true);
    for (const r of swept) await verify(r);
    await fc.assert(fc.asyncProperty(requestsFor(op, fleet, next), verify), { numRuns: RUNS, seed: SEED + index, endOnFailure: true });
    // Events written for refused requests: a 403 or an audited 404 writes one AccessDenied, nothing else.
    const { rows } = await sql<{ id: string; type: string }>`
      SELECT metadata->>'correlation_id' AS id, type FROM events WHERE metadata->>'correlation_id' = ANY(${[...refused.keys()]})`.execute(t.db);
    const written = rows.filter((e) => !(e.type === 'AccessDenied' && [403, 404].includes(refused.get(e.id)!.status)));
    expect(written.map((e) => [e.type, refused.get(e.id)!.summary])).toEqual([]);
    expect(new Set(rows.map((e) => e.id)).size).toBe(rows.length);
    // An Idempotency-Key is stored only for a request answered with success.
    const { rows: stored } = await sql<{ key: string }>`SELECT key FROM idempotency_keys WHERE key = ANY(${[...keyAnswers.keys()]})`.execute(t.db);
    expect(stored.filter((r) => keyAnswers.get(r.key)! >= 400).map((r) => [r.key, keyAnswers.get(r.key)])).toEqual([]);
    expect(counts.requests).toBe(swept.length + RUNS);
  }, TIMEOUT_MS);
});
