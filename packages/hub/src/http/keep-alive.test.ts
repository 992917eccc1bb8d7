import { REPORT_EVERY_MS } from '../../../agent/src/agent.ts';
import { HubClient } from '../../../agent/src/hub-client.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { agentToken, startTestHub, testConfig, type TestHub } from '../../../../test/support/hub.ts';
import { startRoundRobin, type RoundRobinFront } from '../../../../test/support/round-robin.ts';
import { KEEP_ALIVE_MS } from './server-limits.ts';

// An agent holds a long poll on one connection and reports on another: the Hub keeps that one open from one
// report to the next, rather than making each report a new connection (and, over HTTPS, a new handshake).
let t: TestDatabase;
let hub: TestHub;
let front: RoundRobinFront;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(2) });
  // A TCP front that records each connection and the requests on it (the agent's client cannot say).
  front = await startRoundRobin([Number(new URL(hub.url).port)]);
});
afterAll(async () => {
  await front.close();
  await hub.stop();
  await t.drop();
});

test(`issue 21: an agent's reports, one interval apart while its long poll is held, go on one connection the Hub kept open`, async () => {
  expect(KEEP_ALIVE_MS).toBeGreaterThan(REPORT_EVERY_MS);
  const client = new HubClient(front.url, agentToken('edge-1'));
  await client.register({ node_id: 'edge-1', boot_id: 'boot-1' });
  const report = (seq: number) => client.report({ node_id: 'edge-1', boot_id: 'boot-1', report_seq: seq, streams: [] });
  expect(await report(1)).toMatchObject({ accepted: true });
  // The poll outlasts the interval, holding its own connection; the next report comes one interval later.
  const polling = client.attempts(Math.ceil(REPORT_EVERY_MS / 1000) + 2);
  await new Promise((r) => setTimeout(r, REPORT_EVERY_MS));
  expect(await report(2)).toMatchObject({ accepted: true });
  expect(await polling).toEqual({ attempts: [], removedStreams: [] });
  const reporting = front.connections.filter((c) => c.requests.some((r) => r.line.startsWith('POST /api/v1/agent/reports')));
  expect(reporting).toHaveLength(1);
  expect(reporting[0]!.requests.filter((r) => r.line.startsWith('POST /api/v1/agent/reports'))).toHaveLength(2);
});
