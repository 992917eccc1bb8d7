import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { inlined } from './inline.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

test('inlined parameters reach the server as sent: quotes, backslashes, JSON, dates, numbers and NULL', async () => {
  const texts = ["it's", 'C:\\fleet\\edge', "both \\' and '", '', 'ünïcode ✓'];
  const json = { path: 'C:\\x', quote: "'", nested: [1, null] };
  const at = new Date('2026-11-30T12:00:00.123Z');
  const query = sql<{ texts: string[]; json: unknown; at: Date; n: number; none: null }>`SELECT
    ARRAY[${sql.join(texts.map((s) => sql`${s}::text`))}] AS texts, ${JSON.stringify(json)}::jsonb AS json,
    ${at}::timestamptz AS at, ${42}::int AS n, ${null}::text AS none`;
  const { rows } = await sql.raw<{ texts: string[]; json: unknown; at: Date; n: number; none: null }>(inlined([{ compile: () => query.compile(t.db) }])).execute(t.db);
  expect(rows).toEqual([{ texts, json, at, n: 42, none: null }]);
});
