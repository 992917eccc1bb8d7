import { Writable } from 'node:stream';
import pg from 'pg';
import winston from 'winston';
import { createLogger } from '../packages/hub/src/logger.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent } from './support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from './support/hub.ts';

// README, "Running the Hub": settings an SRE gives the Hub's database or role. A server that ends idle sessions
// (idle_session_timeout, set to reap clients that leak connections) does not end the Hub's, which are idle by
// design: its LISTEN connections for as long as it runs. A statement the server cancels (statement_timeout,
// lock_timeout, pg_cancel_backend) fails its request with a 503 to retry, not a 500. A database whose transactions
// default to serializable does not make the Hub's, which lock and then read as committed, fail; nor does one whose
// dates are written in another style than ISO.
let t: TestDatabase;
let hub: TestHub;
const lines: Array<Record<string, any>> = [];
const TIMEOUT_MS = 1000;

beforeAll(async () => {
  t = await createTestDatabase();
  await t.pool.query(`ALTER DATABASE ${new URL(t.url).pathname.slice(1)} SET idle_session_timeout = '${TIMEOUT_MS}ms'`);
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  hub = await startTestHub(t.url, { logger: createLogger('warn', false, [new winston.transports.Stream({ stream: sink })]) });
}, 60_000);

afterAll(async () => {
  await hub?.stop();
  await t?.drop();
});

/** The backends of the Hub's sessions on the test's database (the test's own pool is `fleetplane-test`). */
const hubSessions = async (): Promise<number[]> =>
  (
    await t.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'fleetplane-%' AND application_name <> 'fleetplane-test' ORDER BY pid`,
    )
  ).rows.map((r) => r.pid);

test('Running the Hub: a database whose idle_session_timeout is shorter than the Hub stays quiet ends none of its sessions; nothing is logged and a write reaches a waiting poll', async () => {
  const agent = await TestAgent.reporting(hub, 'edge-1');
  const before = await hubSessions();
  expect(before.length).toBeGreaterThanOrEqual(3); // at least the two LISTEN connections and the job queue's
  await new Promise((r) => setTimeout(r, 3 * TIMEOUT_MS));
  expect(await hubSessions()).toEqual(expect.arrayContaining(before));

  const polled = agent.attempts(10);
  const written = await hub.call('PUT', '/api/v1/streams/quiet', {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: { command: 'sleep', args: ['1'] }, placement: { nodes: ['edge-1'] } },
  });
  expect(written.status).toBe(200);
  expect((await polled).map((a) => a.stream_id)).toEqual(['quiet']);
  expect(lines.filter((l) => l.level === 'error' || /connection|channel|job queue/.test(String(l.message)))).toEqual([]);
}, 60_000);

test('While the database is away: a request whose statement the server cancels (pg_cancel_backend, a statement_timeout) is answered 503 database_unavailable, reason canceled, logged at warn', async () => {
  const sre = new pg.Client({ connectionString: t.url });
  await sre.connect();
  try {
    await sre.query('BEGIN');
    await sre.query('LOCK TABLE streams IN ACCESS EXCLUSIVE MODE');
    const listed = hub.call('GET', '/api/v1/streams', { token: TOKENS.viewer });
    const waiting = await eventually(async () => {
      const { rows } = await sre.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'fleetplane-hub' AND wait_event_type = 'Lock'`,
      );
      return rows.length > 0 ? rows : undefined;
    });
    for (const { pid } of waiting) await sre.query('SELECT pg_cancel_backend($1)', [pid]);
    const answer = await listed;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'database_unavailable', message: expect.stringMatching(/canceled the statement/), details: { reason: 'canceled' } });
  } finally {
    await sre.query('ROLLBACK');
    await sre.end();
  }
  expect((await hub.call('GET', '/api/v1/streams', { token: TOKENS.viewer })).status).toBe(200);
  expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(lines.filter((l) => l.level === 'warn' && String(l.message).startsWith('request failed: the database canceled the statement')).length).toBeGreaterThan(0);
}, 60_000);

test('Running the Hub: on a database whose transactions default to serializable and whose DateStyle is SQL, concurrent writes to the same streams and reports of the same nodes all succeed', async () => {
  const strict = await createTestDatabase();
  let second: TestHub | undefined;
  try {
    const name = new URL(strict.url).pathname.slice(1);
    await strict.pool.query(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`);
    await strict.pool.query(`ALTER DATABASE ${name} SET DateStyle = 'SQL, DMY'`);
    second = await startTestHub(strict.url);
    const agents = [await TestAgent.reporting(second, 'edge-1'), await TestAgent.reporting(second, 'edge-2')];
    const statuses = new Set<number>();
    await Promise.all(
      Array.from({ length: 6 }, async (_, client) => {
        for (let i = 0; i < 8; i++) {
          const written = await second!.call('PUT', `/api/v1/streams/shared-${client % 2}`, {
            token: TOKENS.operator,
            body: { desired_state: 'running', spec: { command: 'sleep', args: [`${client}-${i}`] }, placement: { nodes: ['edge-1', 'edge-2'] } },
          });
          statuses.add(written.status);
          for (const agent of agents) statuses.add((await agent.report()).status);
        }
      }),
    );
    expect([...statuses].filter((s) => s >= 300)).toEqual([]);
  } finally {
    await second?.stop();
    await strict.drop();
  }
}, 120_000);
