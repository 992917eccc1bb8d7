import http from 'node:http';
import { REPORT_EVERY_MS } from '../../../agent/src/agent.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, testConfig, type TestHub } from '../../../../test/support/hub.ts';
import { KEEP_ALIVE_MS } from '../hub.ts';

// An agent holds a long poll on one connection and reports on another: the Hub keeps that one open from one
// report to the next, rather than making each report a new connection (and, over HTTPS, a new handshake).
let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2) });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

/** GET `path` on `agent`'s connections: its status, Keep-Alive header, and whether it went on a connection used before. */
function get(agent: http.Agent, path: string): Promise<{ status: number; keepAlive: string | undefined; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, hub.url), { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, keepAlive: res.headers['keep-alive'] as string | undefined, reused: req.reusedSocket }));
    });
    req.on('error', reject);
  });
}

test(`issue 21: an idle kept-alive connection outlives an agent's report interval: the Hub says how long it keeps one, and answers on it after the interval`, async () => {
  expect(KEEP_ALIVE_MS).toBeGreaterThan(REPORT_EVERY_MS);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await get(agent, '/healthz');
    expect(first).toEqual({ status: 200, keepAlive: `timeout=${KEEP_ALIVE_MS / 1000}`, reused: false });
    // An agent's next report, one interval later (and a second on top), goes on the same connection.
    await new Promise((r) => setTimeout(r, REPORT_EVERY_MS + 1000));
    expect(await get(agent, '/healthz')).toMatchObject({ status: 200, reused: true });
  } finally {
    agent.destroy();
  }
});
