import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from '../packages/hub/src/logger.ts';
import { GAUGE_READ_MS } from '../packages/hub/src/metrics.ts';
import { parseExposition, sampleValue } from './support/exposition.ts';
import { eventually } from './support/fleet.ts';
import { startTestHub, type TestHub } from './support/hub.ts';
import { startOwnServer, type OwnServer } from './support/own-server.ts';

// README, "While the database is away", whether the server refuses connections (stopped) or stops answering on
// open ones (frozen: a hung host, a partition): the log shows one `warn` line per failure, not stack traces, and
// /metrics still answers.
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
    logger: createLogger('warn', false, [new winston.transports.Stream({ stream: sink })]),
    sweepEveryMs: 500,
    resyncEveryMs: 500,
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
  expect(unavailable.map((l) => l.cause)).toContain('LISTEN/NOTIFY heartbeat timed out');
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
  expect(lines.filter((l) => l.message === 'metrics: gauges left out: the database is unavailable').length).toBeGreaterThanOrEqual(2);
  expect(lines.filter((l) => l.level === 'error').slice(0, 3)).toEqual([]);
}, 60_000);
