import { sql } from 'kysely';
import { keepSegmentsAhead, SEGMENT_BOUNDS } from '../packages/hub/src/event-store/segments.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { TestAgent } from './support/fleet.ts';
import { startTestHub, testConfig, type TestHub } from './support/hub.ts';

// Issue 19: what a report costs in the hot database, measured as an operator would: a Hub, many nodes sending
// full reports over HTTP, the size of the log (every partition's table, indexes and TOAST) before and after,
// divided by the reports. Enough of them that pages partly filled at either end weigh little.

const NODES = 300;
const REPEATED_PER_NODE = 30;
const CHANGED_PER_NODE = 10;
const STREAMS = ['ingest-eu-1', 'metrics-agent', 'log-shipper', 'edge-cache', 'dns-proxy'];
/** Reports in flight at once, as many nodes reporting together. */
const IN_FLIGHT = 32;

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(NODES) });
});
afterAll(async () => {
  await hub?.stop();
  await t.drop();
});

/** Every segment's table, indexes and TOAST. */
const logBytes = async () =>
  Number((await sql<{ bytes: string }>`SELECT sum(pg_total_relation_size(inhrelid)) AS bytes FROM pg_inherits WHERE inhparent = 'events'::regclass`.execute(t.db)).rows[0]!.bytes);

/** The log's bytes by part: its tables (with TOAST) and each index, summed over the segments. */
const parts = async (): Promise<Record<string, number>> =>
  Object.fromEntries(
    (
      await sql<{ part: string; bytes: string }>`
        SELECT 'table' AS part, sum(pg_table_size(inhrelid)) AS bytes FROM pg_inherits WHERE inhparent = 'events'::regclass
        UNION ALL
        SELECT p.relname, sum(pg_relation_size(i.inhrelid)) FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
        WHERE i.inhparent IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'events'::regclass) GROUP BY p.relname`.execute(t.db)
    ).rows.map((r) => [r.part, Number(r.bytes)]),
  );

/** Bytes per report of each part between two measurements, for the record. */
const perReport = (before: Record<string, number>, after: Record<string, number>, n: number) =>
  Object.entries(after).map(([part, bytes]) => `${part} ${((bytes - (before[part] ?? 0)) / n).toFixed(1)}`).join(', ');

const reports = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM events WHERE type = 'NodeReported'`.execute(t.db)).rows[0]!.n);

/**
 * Every agent reports `times` times, IN_FLIGHT reports at once: each lane sends its own agents' reports in
 * turn, so an agent's reports go one after another. `change` runs before each report. Answers the reports sent.
 */
async function reportAll(agents: TestAgent[], times: number, change: (agent: TestAgent, round: number) => void = () => {}): Promise<number> {
  const lane = async (j: number) => {
    const mine = agents.filter((_, i) => i % IN_FLIGHT === j);
    for (let round = 0; round < times; round++) {
      for (const agent of mine) {
        change(agent, round);
        const r = await agent.report();
        if (r.status !== 202 || r.body.accepted !== true) throw new Error(`report of ${agent.nodeId}: ${r.status} ${JSON.stringify(r.body)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, j) => lane(j)));
  return agents.length * times;
}

test('issue 19: a repeated report costs at most 300 bytes in the hot log, a changed report of 5 streams at most 800', async () => {
  const agents = Array.from({ length: NODES }, (_, i) => new TestAgent(hub, `edge-${i + 1}`));
  for (const agent of agents) {
    expect((await agent.register()).status).toBe(200);
    for (const stream_id of STREAMS) agent.streams.set(stream_id, { stream_id, generation: 1, state: 'running' });
  }
  // Each node's first report changes what it runs; from then on it repeats it.
  await reportAll(agents, 1);

  // The segments the Hub keeps ahead are in place: a new segment's empty indexes (a few pages each, once per
  // 100,000 events or more) are not a report's cost.
  await keepSegmentsAhead(t.db, { ...SEGMENT_BOUNDS, durationMs: 3_600_000 }, new Date());
  const repeatedStart = { bytes: await logBytes(), reports: await reports(), parts: await parts() };
  const repeated = await reportAll(agents, REPEATED_PER_NODE);
  const repeatedEnd = { bytes: await logBytes(), reports: await reports(), parts: await parts() };
  expect(repeatedEnd.reports - repeatedStart.reports).toBe(repeated);

  // Every changed report moves one stream to its next generation: all five streams are in the report.
  const changed = await reportAll(agents, CHANGED_PER_NODE, (agent, round) => {
    agent.streams.get(STREAMS[round % STREAMS.length]!)!.generation += 1;
  });
  const changedEnd = { bytes: await logBytes(), reports: await reports(), parts: await parts() };
  expect(changedEnd.reports - repeatedEnd.reports).toBe(changed);
  // Nothing else was appended meanwhile.
  const { rows: others } = await sql<{ n: string }>`SELECT count(*) AS n FROM events WHERE type <> 'NodeReported' AND position > (
    SELECT min(position) FROM events WHERE type = 'NodeReported')`.execute(t.db);
  expect(Number(others[0]!.n)).toBe(0);

  const perRepeated = (repeatedEnd.bytes - repeatedStart.bytes) / repeated;
  const perChanged = (changedEnd.bytes - repeatedEnd.bytes) / changed;
  const { rows: [server] } = await sql<{ version: string }>`SELECT current_setting('server_version') AS version`.execute(t.db);
  console.log(
    `PostgreSQL ${server!.version}, ${NODES} nodes over HTTP: a repeated report ${perRepeated.toFixed(0)} bytes (${repeated} reports), ` +
      `a changed report of ${STREAMS.length} streams ${perChanged.toFixed(0)} bytes (${changed} reports), table + indexes + TOAST\n` +
      `repeated, by part: ${perReport(repeatedStart.parts, repeatedEnd.parts, repeated)}\n` +
      `changed, by part: ${perReport(repeatedEnd.parts, changedEnd.parts, changed)}`,
  );
  expect(perRepeated).toBeLessThanOrEqual(300);
  expect(perChanged).toBeLessThanOrEqual(800);
}, 300_000);
