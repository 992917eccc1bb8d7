import { createTestDatabase, type TestDatabase } from '../../../../../test/support/database.ts';
import { TestAgent } from '../../../../../test/support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../../test/support/hub.ts';

// Issue 19 (history stays readable): a node's report rate instead of its every heartbeat, in GET /nodes/{id}
// and GET /report-rates, counted over the last minute and hour of the Hub's clock.

let t: TestDatabase;
let hub: TestHub;
let now = new Date('2031-05-01T12:00:00.000Z');
const at = (hh: number, mm: number, ss = 0) => new Date(Date.UTC(2031, 4, 1, hh, mm, ss));

beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(3), clock: { now: () => now } });
  const [edge1, edge2, edge3] = ['edge-1', 'edge-2', 'edge-3'].map((id) => new TestAgent(hub, id));
  for (const agent of [edge1!, edge2!, edge3!]) expect((await agent.register()).status).toBe(200);
  const report = async (agent: TestAgent, time: Date, change = false) => {
    now = time;
    if (change) agent.streams.set('ingest', { stream_id: 'ingest', generation: agent.seq, state: 'running' });
    expect((await agent.report()).body.accepted).toBe(true);
  };
  // edge-3 reported once, long ago; edge-2 never.
  await report(edge3!, at(11, 0));
  // edge-1: a report a minute from 12:00 to 13:29 (the first one, and those at 12:45 and 13:25, changed), then
  // five in the last minute, every ten seconds (the one at 13:29:30 changed).
  for (let k = 0; k < 90; k++) await report(edge1!, at(12, k), k === 45 || k === 85);
  for (const s of [10, 20, 30, 40, 50]) await report(edge1!, at(13, 29, s), s === 30);
  now = at(13, 30);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

test('Issue 19 GET /nodes/{id} counts the reports of the last minute and hour, and those that changed the node', async () => {
  const r = await hub.call('GET', '/api/v1/nodes/edge-1', { token: TOKENS.viewer });
  expect(r.status).toBe(200);
  // The hour is (12:30, 13:30]: the report at 12:30:00 sharp is out, 59 others and the last minute's 5 are in.
  expect(r.body).toMatchObject({
    node_id: 'edge-1',
    last_report_seq: 95,
    last_report_at: '2031-05-01T13:29:50.000Z',
    reports: { last_minute: { reports: 5, changed: 1 }, last_hour: { reports: 64, changed: 3 } },
  });
  const quiet = await hub.call('GET', '/api/v1/nodes/edge-3', { token: TOKENS.viewer });
  expect(quiet.body.reports).toEqual({ last_minute: { reports: 0, changed: 0 }, last_hour: { reports: 0, changed: 0 } });
  expect((await hub.call('GET', '/api/v1/nodes/edge-9', { token: TOKENS.viewer })).body.code).toBe('node_not_found');
});

test('Issue 19 the windows move with the clock: at 14:29:35 the hour holds the reports at 13:29:40 and 13:29:50', async () => {
  now = at(14, 29, 35);
  try {
    const r = await hub.call('GET', '/api/v1/nodes/edge-1', { token: TOKENS.viewer });
    expect(r.body.reports).toEqual({ last_minute: { reports: 0, changed: 0 }, last_hour: { reports: 2, changed: 0 } });
  } finally {
    now = at(13, 30);
  }
});

test('Issue 19 GET /report-rates lists every node, by id, paged', async () => {
  const r = await hub.call('GET', '/api/v1/report-rates', { token: TOKENS.viewer });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    items: [
      { node_id: 'edge-1', last_report_seq: 95, last_report_at: '2031-05-01T13:29:50.000Z', last_minute: { reports: 5, changed: 1 }, last_hour: { reports: 64, changed: 3 } },
      { node_id: 'edge-2', last_report_seq: null, last_report_at: null, last_minute: { reports: 0, changed: 0 }, last_hour: { reports: 0, changed: 0 } },
      { node_id: 'edge-3', last_report_seq: 1, last_report_at: '2031-05-01T11:00:00.000Z', last_minute: { reports: 0, changed: 0 }, last_hour: { reports: 0, changed: 0 } },
    ],
    next_cursor: null,
  });
  const first = await hub.call('GET', '/api/v1/report-rates?limit=2', { token: TOKENS.viewer });
  expect([first.body.items.map((n: any) => n.node_id), first.body.next_cursor]).toEqual([['edge-1', 'edge-2'], 'edge-2']);
  const second = await hub.call('GET', `/api/v1/report-rates?limit=2&cursor=${first.body.next_cursor}`, { token: TOKENS.viewer });
  expect([second.body.items.map((n: any) => n.node_id), second.body.next_cursor]).toEqual([['edge-3'], null]);
  for (const query of ['limit=0', 'limit=101', 'limit=many']) {
    const bad = await hub.call('GET', `/api/v1/report-rates?${query}`, { token: TOKENS.viewer });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_request']);
  }
  expect((await hub.call('GET', '/api/v1/report-rates', { token: TOKENS.agent1 })).status).toBe(403);
});
