import { CompiledQuery, sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { at, event } from '../../../../test/support/events.ts';
import { appendToStream, type EventToAppend } from './append.ts';
import { matchesFilter, REPORT_FILTERS, type LogFilter } from './filter.ts';
import { logQuery, readAll, START } from './read-all.ts';

// Issue 19 (history stays readable): the `reports` filter, in SQL (GET /events) and in memory (the SSE
// stream), on reports of both stored shapes, and the index that keeps it fast.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

const agent = { actor: 'edge-1-agent', role: 'agent', correlation_id: 'c-r', causation_id: null, source: 'agent' } as const;
const report = (schemaVersion: number, data: Record<string, unknown>): EventToAppend => ({ type: 'NodeReported', schemaVersion, data, metadata: agent, recordedAt: at });
const v1 = (seq: number, streams: unknown[] | null) =>
  report(1, { node_id: 'edge-1', boot_id: 'b1', report_seq: seq, digest: 'd', streams, applied_config_version: null, recovery_points: streams && [] });
const running = { stream_id: 's1', generation: 1, state: 'running', last_action_id: null, error: null };

/** Which reports each value passes, by sequence number (the operator's event passes every one). */
const EXPECTED: Record<string, number[]> = { all: [1, 2, 3, 4, 5, 6], changed: [1, 3, 5], none: [] };

beforeAll(async () => {
  const appended = await appendToStream(t.db, 'node:edge-1', 'any', [
    v1(1, [running]),
    v1(2, null),
    report(2, { seq: 3, streams: [['s1', 1, 'running']], config: null, points: [] }),
    report(2, { seq: 4 }),
    // A changed report that runs nothing is still a change.
    report(2, { seq: 5, streams: [], config: null, points: [] }),
    report(2, { seq: 6 }),
  ]);
  expect(appended.ok).toBe(true);
  expect((await appendToStream(t.db, 'node:edge-1', 'any', [event('NodeLabelsReplaced', { node_id: 'edge-1' })])).ok).toBe(true);
});

/** Every event of this database, read below the horizon (other test files' transactions may hold it back). */
async function everything() {
  for (const deadline = Date.now() + 10_000; ; ) {
    const page = await readAll(t.db, START, 1000);
    if (page.events.length === 7) return page.events;
    if (Date.now() > deadline) throw new Error(`read ${page.events.length} events of 7`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const filters: LogFilter[] = REPORT_FILTERS.flatMap((reports) => [
  { reports },
  { reports, types: ['NodeReported'] },
  { reports, types: ['NodeReported', 'NodeLabelsReplaced'] },
  { reports, types: ['NodeLabelsReplaced'] },
  { reports, streamId: 'node:edge-1' },
  { reports, actor: 'edge-1-agent' },
]);

test.each(filters)('Issue 19 reports=%j passes the same events in SQL as in memory', async (filter) => {
  const all = await everything();
  const read = (await readAll(t.db, START, 1000, filter)).events.map((e) => e.position);
  expect(read).toEqual(all.filter((e) => matchesFilter(e, filter)).map((e) => e.position));
});

test.each(REPORT_FILTERS)('Issue 19 reports=%s passes reports of both stored shapes as it says', async (reports) => {
  await everything();
  const events = (await readAll(t.db, START, 1000, { reports })).events;
  expect(events.filter((e) => e.type === 'NodeReported').map((e) => e.data.seq)).toEqual(EXPECTED[reports]);
  expect(events.filter((e) => e.type === 'NodeLabelsReplaced')).toHaveLength(1);
  const paged = [];
  for (let page = await readAll(t.db, START, 1, { reports }); page.events.length > 0; page = await readAll(t.db, page.cursor, 1, { reports })) paged.push(...page.events);
  expect(paged.map((e) => e.position)).toEqual(events.map((e) => e.position));
});

/** The indexes of `events` (the partitioned parents) a read's plan uses. */
async function indexesUsed(filter: LogFilter): Promise<string[]> {
  const compiled = logQuery(t.db, START, 101, filter).compile();
  // With sequential scans off, the plan shows which index the filter can use at all, whatever the table's size.
  const plan = await t.db.connection().execute(async (c) => {
    await sql`SET enable_seqscan = off`.execute(c);
    try {
      return (await c.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${compiled.sql}`, [...compiled.parameters]))).rows[0]!['QUERY PLAN'];
    } finally {
      await sql`RESET enable_seqscan`.execute(c);
    }
  });
  const names = [...JSON.stringify(plan).matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]!);
  const { rows } = await sql<{ parent: string }>`
    SELECT DISTINCT p.relname AS parent FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid JOIN pg_class p ON p.oid = i.inhparent
    WHERE c.relname = ANY(${names}::text[]) ORDER BY 1`.execute(t.db);
  return rows.map((r) => r.parent);
}

test('Issue 19 leaving out repeated reports walks the index that holds every other event, in log order', async () => {
  expect(await indexesUsed({ reports: 'changed' })).toEqual(['events_tx_unrepeated']);
  expect(await indexesUsed({ reports: 'none' })).toEqual(['events_tx_unrepeated']);
  expect(await indexesUsed({ reports: 'changed', types: ['NodeReported', 'NodeLabelsReplaced'] })).toEqual(['events_tx_unrepeated']);
  expect(await indexesUsed({ reports: 'all' })).toEqual(['events_tx']);
});

test('Issue 19 reports=none with NodeReported as the only type reads nothing, and scans nothing', async () => {
  await everything();
  expect((await readAll(t.db, START, 1000, { reports: 'none', types: ['NodeReported'] })).events).toEqual([]);
  expect(await indexesUsed({ reports: 'none', types: ['NodeReported'] })).toEqual([]);
});
