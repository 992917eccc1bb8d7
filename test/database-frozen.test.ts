import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caller, testConfig, TOKENS } from './support/hub.ts';
import { startOwnServer, type OwnServer } from './support/own-server.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// The Hub's PostgreSQL stops answering without closing anything (its processes frozen, as a hung host or a
// partition that drops packets): requests waiting on connections the Hub already held are answered 503 once
// a new connection cannot be opened in time, not held until TCP gives up, and the Hub serves again after.
let server: OwnServer;
let hub: HubProcess;
let dir: string;

beforeAll(async () => {
  server = await startOwnServer();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-frozen-'));
  hub = await startConfiguredHub({ databaseUrl: server.url(), dir, config: testConfig(1).file });
}, 60_000);

afterAll(async () => {
  await server?.thaw().catch(() => {});
  await hub?.stop('SIGKILL');
  await server?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** A generous bound, documented: the connect timeout (10 s) that trips the watchdog, then the answer. */
const ANSWERED_WITHIN_MS = 40_000;

test('a frozen database: requests on connections already held are answered 503 within the connect timeout, not held; it serves again once thawed', async () => {
  const api = caller(hub.url);
  const read = () => api.call('GET', '/api/v1/nodes', { token: TOKENS.viewer });
  // Several requests at once leave several idle connections in the pool, each to be taken by a request below.
  const warm = await Promise.all(Array.from({ length: 8 }, read));
  expect(warm.map((r) => r.status)).toEqual(Array(8).fill(200));

  await server.freeze();
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 12 }, () =>
      Promise.race([
        read().then((r) => ({ status: r.status, code: r.body.code as string, ms: Date.now() - started })),
        new Promise<{ status: number; code: string; ms: number }>((held) => setTimeout(() => held({ status: 0, code: 'held', ms: ANSWERED_WITHIN_MS }), ANSWERED_WITHIN_MS)),
      ]),
    ),
  );
  // The operators' places (control_api.operator_max_in_flight) are held by requests waiting on the frozen server:
  // those are answered 503, and the ones queued behind them 429 overloaded once they waited the same 10 s.
  const inFlight = testConfig(1).file.control_api.operator_max_in_flight;
  expect(answers.slice(0, inFlight).map((a) => [a.status, a.code])).toEqual(Array(inFlight).fill([503, 'database_unavailable']));
  expect(new Set(answers.map((a) => `${a.status} ${a.code}`))).toEqual(new Set(['503 database_unavailable', '429 overloaded']));

  await server.thaw();
  const back = await (async () => {
    for (let i = 0; i < 100; i++) {
      const r = await read();
      if (r.status === 200) return r;
      await new Promise((ready) => setTimeout(ready, 200));
    }
    return read();
  })();
  expect(back.status).toBe(200);
}, 120_000);
