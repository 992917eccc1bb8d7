import { sql } from 'kysely';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { REPORT_BODY_LIMIT } from './agent.ts';

// The Hub takes reports of up to 10,000 streams; its 1 MiB body limit held about 7,000 streams with health, and
// above that every report was 413, the node offline while its agent ran.

const suite = hubSuite({ config: testConfig(1) });
const agent = { token: TOKENS.agent1 };

/** A stream as a process executor reports it, with ids longer than most and an action id. */
const stream = (n: number) => ({
  stream_id: `team-ingest/partition-${String(n).padStart(5, '0')}-worker`,
  generation: 12,
  state: 'running',
  last_action_id: `ac_01JF8Z6Q4T6YH3N8K2Q5W7E${String(n).padStart(5, '0')}`,
  error: null,
  health: { status: 'running', exit_code: null, restarts: 0 },
});

test('A8 a report of the most streams the Hub takes, each with health and ids, is accepted; one over its body limit is 413 naming the limit', async () => {
  expect((await suite.hub.call('POST', '/api/v1/agent/register', { ...agent, body: { node_id: 'edge-1', boot_id: 'b1' } })).status).toBe(200);
  const streams = Array.from({ length: 10_000 }, (_, n) => stream(n));
  const report = { node_id: 'edge-1', boot_id: 'b1', report_seq: 1, full: true, streams };
  expect(Buffer.byteLength(JSON.stringify(report))).toBeGreaterThan(1024 * 1024);
  const r = await suite.hub.call('POST', '/api/v1/agent/reports', { ...agent, body: report });
  expect([r.status, r.body]).toEqual([202, { accepted: true }]);
  const observed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM observed_streams WHERE node_id = 'edge-1'`.execute(suite.t.db);
  expect(observed.rows[0]!.n).toBe(10_000);

  const padded = { ...report, report_seq: 2, streams: streams.map((s) => ({ ...s, error: 'x'.repeat(4000) })) };
  expect(Buffer.byteLength(JSON.stringify(padded))).toBeGreaterThan(REPORT_BODY_LIMIT);
  const large = await suite.hub.call('POST', '/api/v1/agent/reports', { ...agent, body: padded });
  expect([large.status, large.body.code, large.body.message]).toEqual([413, 'body_too_large', expect.stringContaining('16 MiB')]);
});

test('A8 the report route takes its larger bodies from a known credential only: a token nobody holds, or none, is refused at 1 MiB before the Hub holds more', async () => {
  const report = { node_id: 'edge-1', boot_id: 'b1', report_seq: 3, full: true, streams: Array.from({ length: 10_000 }, (_, n) => stream(n)) };
  expect(Buffer.byteLength(JSON.stringify(report))).toBeGreaterThan(1024 * 1024);
  for (const token of ['not-a-credential', null]) {
    const r = await suite.hub.call('POST', '/api/v1/agent/reports', { token, body: report });
    expect([token, r.status, r.body.code, r.body.message]).toEqual([token, 413, 'body_too_large', expect.stringContaining('1 MiB')]);
  }
  // A small body from a stranger is answered as before: the token is unknown.
  const small = await suite.hub.call('POST', '/api/v1/agent/reports', { token: 'not-a-credential', body: { ...report, streams: [] } });
  expect([small.status, small.body.code]).toEqual([401, 'unauthenticated']);
});

test('another route keeps the 1 MiB limit', async () => {
  const large = await suite.hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { env: 'x'.repeat(1024 * 1024) } } });
  expect([large.status, large.body.code, large.body.message]).toEqual([413, 'body_too_large', expect.stringContaining('1 MiB')]);
});
