import { Writable } from 'node:stream';
import pg from 'pg';
import winston from 'winston';
import { REQUEST_FAILED } from '../packages/hub/src/http/failure.ts';
import { createLogger } from '../packages/hub/src/logger.ts';
import { STILL_FAILING_EVERY_MS } from '../packages/hub/src/repeated-failures.ts';
import { GAUGE_READ_MS } from '../packages/hub/src/metrics.ts';
import { parseExposition, sampleValue } from './support/exposition.ts';
import { eventually, TestAgent } from './support/fleet.ts';
import { startTestHub, testConfig, type TestHub } from './support/hub.ts';
import { startOwnServer, type OwnServer } from './support/own-server.ts';

// README, "While the database is away", whether the server refuses connections (stopped) or stops answering on
// open ones (frozen: a hung host, a partition): the log shows `warn` lines, not stack traces, each duty's first
// failure and then a line a minute, one `info` line when it works again, and /metrics still answers.
let server: OwnServer;
let hub: TestHub;
const lines: Array<Record<string, any>> = [];

beforeAll(async () => {
  server = await startOwnServer();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  // Every background worker runs often, so each one meets the outage.
  hub = await startTestHub(server.url(), {
    config: testConfig(2, {}, {}, { archive_every: '1s' }),
    logger: createLogger('info', false, [new winston.transports.Stream({ stream: sink })]),
    sweepEveryMs: 500,
    resyncEveryMs: 500,
    approvalSweepEveryMs: 500,
    forgetKeysEveryMs: 500,
    pruneIntentsEveryMs: 500,
    segmentsEveryMs: 500,
  });
}, 60_000);

afterAll(async () => {
  await server?.thaw().catch(() => {});
  await hub?.stop();
  await server?.destroy();
});

const ready = () => eventually(async () => ((await hub.call('GET', '/readyz', { token: null })).status === 200 ? true : undefined), 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('While the database is away: frozen past the job queue heartbeat and the connect timeout, then stopped, every failure is one warn line and none is an error', async () => {
  // pg-boss checks its LISTEN connection every 10 s and gives up after 5 s; a new connection times out after 10 s.
  await server.freeze();
  await sleep(17_000);
  await server.thaw();
  await ready();

  await server.stop('immediate');
  await sleep(4_000);
  await server.start();
  await ready();

  const errors = lines.filter((l) => l.level === 'error');
  expect(errors.slice(0, 3)).toEqual([]);
  const unavailable = lines.filter((l) => l.level === 'warn' && String(l.message).endsWith(': the database is unavailable'));
  const messages = new Set(unavailable.map((l) => l.message));
  expect(messages).toContain('lease sweep failed: the database is unavailable');
  expect(messages).toContain('resync failed: the database is unavailable');
  // Repeats are folded, so the causes logged are those of each duty's first failure; one no outage explains
  // (the LISTEN connection's heartbeat timing out, say) would have been an error line.
  expect(unavailable.map((l) => l.cause)).toEqual(expect.arrayContaining([expect.stringMatching(/^Connection terminated due to connection timeout/)]));
  // One line each: the cause's message, never a stack.
  for (const l of unavailable) expect(JSON.stringify(l)).not.toMatch(/stack|\n\s+at /);
}, 90_000);

/** /metrics as Prometheus scrapes it, and how long it took. */
async function scrape() {
  const started = Date.now();
  const r = await hub.call('GET', '/metrics', { token: null });
  return { status: r.status, type: r.headers.get('content-type'), families: parseExposition(r.body as string), ms: Date.now() - started };
}

test('Metrics and alerts: stopped or frozen, /metrics answers 200 in the text format in time, with the process metrics and counters, the database gauges left out and fleetplane_database_up 0', async () => {
  const before = await scrape();
  expect(sampleValue(before.families, 'fleetplane_database_up')).toBe(1);
  expect(sampleValue(before.families, 'fleetplane_intents', { state: 'blocked' })).toBe(0);

  const away = async () => {
    const s = await scrape();
    expect([s.status, s.type]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    expect(s.ms).toBeLessThan(GAUGE_READ_MS + 2_000);
    expect(sampleValue(s.families, 'fleetplane_database_up')).toBe(0);
    expect(s.families.has('fleetplane_intents')).toBe(false);
    expect(s.families.has('fleetplane_job_queue_depth')).toBe(false);
    // What the process knows without the database is all there.
    expect(sampleValue(s.families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.families.has('fleetplane_http_requests_total')).toBe(true);
    expect(sampleValue(s.families, 'fleetplane_log_followers')).toBe(0);
  };
  await server.freeze();
  try {
    await away();
  } finally {
    await server.thaw();
  }
  await ready();
  await server.stop('immediate');
  try {
    await away();
  } finally {
    await server.start();
  }
  await ready();
  expect(sampleValue((await scrape()).families, 'fleetplane_database_up')).toBe(1);
  // Frozen, then stopped, with no scrape answered whole between: one run of failures, said first and when over.
  expect(lines.filter((l) => l.message === 'metrics: gauges left out: the database is unavailable').length).toBeGreaterThanOrEqual(1);
  expect(lines.filter((l) => l.level === 'info' && /^metrics: gauges left out: recovered after \d+ s, [2-9]\d* failures$/.test(l.message))).toHaveLength(1);
  expect(lines.filter((l) => l.level === 'error').slice(0, 3)).toEqual([]);
}, 60_000);

/** Sets the server's default for every session, as an SRE does with ALTER SYSTEM and a reload. */
async function readOnly(on: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    await client.query(on ? 'ALTER SYSTEM SET default_transaction_read_only = on' : 'ALTER SYSTEM RESET default_transaction_read_only');
    await client.query('SELECT pg_reload_conf()');
  } finally {
    await client.end();
  }
}

test('While the database is away: a server that refuses writes (a standby after a failover) gets 503 database_unavailable saying so, readiness fails, warn lines only; writable again, the Hub serves', async () => {
  const agent = await TestAgent.reporting(hub, 'edge-1');
  const write = () => hub.call('PUT', '/api/v1/streams/read-only', { body: { desired_state: 'running', spec: {}, placement: { nodes: ['edge-1'] } } });
  const seen = lines.length;
  await readOnly(true);
  try {
    const refused = await eventually(async () => {
      const r = await write();
      return r.status === 503 ? r : undefined;
    });
    expect(refused.body).toMatchObject({ code: 'database_unavailable', message: expect.stringMatching(/refuses writes/), details: { reason: 'read_only' } });
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(await agent.report()).toMatchObject({ status: 503, body: { details: { reason: 'read_only' } } });
    expect(await hub.call('GET', '/readyz', { token: null })).toMatchObject({ status: 503, body: { ready: false, checks: { database: { ok: false, detail: expect.stringMatching(/refuses writes/) } } } });
    await sleep(2_000); // the job queue's workers and the sweeps meet it too
  } finally {
    await readOnly(false);
  }
  await ready();
  expect((await write()).status).toBe(200);
  const during = lines.slice(seen);
  expect(during.filter((l) => l.level === 'error').slice(0, 3)).toEqual([]);
  expect(during.filter((l) => l.level === 'warn' && String(l.message).endsWith('refuses writes (read-only: a standby, or default_transaction_read_only)')).length).toBeGreaterThan(0);
}, 60_000);

/** How many lines at `level` say `what`. */
const said = (what: RegExp, level: string) => lines.filter((l) => l.level === level && what.test(l.message)).length;

test('While the database is away: stopped for 20 s, with every duty failing at least once a second, each duty logs its first failure and no more (a line a minute at most), and its recovery line once it works again', async () => {
  const OUTAGE_S = 20;
  const agent = await TestAgent.reporting(hub, 'edge-2');
  // Every run of failures the tests before began is over: each duty's first failure below starts a new one.
  await eventually(async () => (said(/: (the database|the archive) /, 'warn') === said(/: recovered after /, 'info') ? true : undefined), 30_000);
  const seen = lines.length;
  await server.stop('immediate');
  const stopped = Date.now();
  try {
    while (Date.now() - stopped < OUTAGE_S * 1000) {
      expect((await agent.report()).status).toBe(503);
      await sleep(100);
    }
  } finally {
    await server.start();
  }
  const outage = lines.slice(seen);
  const failing = outage.filter((l) => l.level === 'warn' && / the database is unavailable$| still failing, \d+ times since /.test(l.message));
  const byDuty = new Map<string, number>();
  for (const l of failing) byDuty.set(l.duty, (byDuty.get(l.duty) ?? 0) + 1);
  // Each of these met the outage dozens of times (every 500 ms, the requests every 100 ms).
  expect([...byDuty.keys()]).toEqual(
    expect.arrayContaining(['lease_sweep', 'resync', 'identity_check', 'job_queue', 'log_segments', REQUEST_FAILED.name]),
  );
  const bound = 1 + Math.ceil((OUTAGE_S * 1000) / STILL_FAILING_EVERY_MS);
  expect([...byDuty].filter(([, n]) => n > bound)).toEqual([]);
  // The requests answered 503 are each counted, not each logged: agents polling would write a line each.
  expect(outage.filter((l) => l.message === 'request' && l.status === 503)).toEqual([]);
  expect(outage.filter((l) => l.level === 'error').slice(0, 3)).toEqual([]);

  await ready();
  const recovered = await eventually(async () => {
    const said = new Set(lines.slice(seen).filter((l) => l.level === 'info' && / recovered after \d+ s, \d+ failures$/.test(l.message)).map((l) => l.duty));
    return [...byDuty.keys()].every((duty) => said.has(duty)) ? said : undefined;
  }, 30_000);
  expect([...recovered].sort()).toEqual([...byDuty.keys()].sort());
  const backgroundFailures = sampleValue((await scrape()).families, 'fleetplane_background_failures_total', { duty: 'lease_sweep' });
  expect(backgroundFailures).toBeGreaterThanOrEqual((OUTAGE_S * 1000) / 500 / 2);
}, 90_000);
