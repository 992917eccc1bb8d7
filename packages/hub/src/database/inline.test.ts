import fc from 'fast-check';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { inlined, InlineError } from './inline.ts';

// The inliner is checked against PostgreSQL itself: a statement run with its parameters inlined must answer
// what the same statement answers with them bound (the extended protocol), or be refused by the inliner.
let t: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  t = await createTestDatabase();
  client = new pg.Client({ connectionString: t.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await t.drop();
});

type Outcome = { rows: unknown[] } | { sqlstate: string } | { refused: string };

async function outcome(run: () => Promise<pg.QueryResult>): Promise<Outcome> {
  try {
    return { rows: (await run()).rows };
  } catch (e) {
    if (e instanceof InlineError) return { refused: e.message };
    const code = (e as { code?: string }).code;
    if (!code) throw e;
    return { sqlstate: code };
  }
}

const bound = (text: string, values: unknown[]) => outcome(() => client.query(text, values));
const inlinedRun = (text: string, values: unknown[]) => outcome(() => client.query(inlined([CompiledQuery.raw(text, values)])));

/** Text a parameter cannot carry unchanged: PostgreSQL text holds no NUL, and UTF-8 no unpaired surrogate. */
const unsendable = (s: string) => s.includes('\0') || !s.isWellFormed();

// Pieces that break naive quoting or placeholder substitution, mixed into arbitrary text.
const tricky = fc.constantFrom("'", "''", '\\', "\\'", '"', '$1', '$2', '$$', '$a$', '--', '/*', '*/', ';', '\0', '\ud800', '\udfff', 'E\'', '\n', 'ü', '😀');
const text = fc.array(fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 12 }).map((parts) => parts.join(''));

const runs = { numRuns: 150 };

test('text reads back exactly as sent, or is refused when PostgreSQL text cannot hold it', async () => {
  await fc.assert(
    fc.asyncProperty(text, async (s) => {
      const inlinedAnswer = await inlinedRun('SELECT $1::text AS v', [s]);
      if (unsendable(s)) {
        expect(inlinedAnswer).toEqual({ refused: expect.stringMatching(/NUL|surrogate/) });
      } else {
        expect(inlinedAnswer).toEqual({ rows: [{ v: s }] });
        expect(inlinedAnswer).toEqual(await bound('SELECT $1::text AS v', [s]));
      }
    }),
    runs,
  );
});

test('placeholders inside quoted text, quoted identifiers, dollar quotes and comments are left as they are', async () => {
  const statement = `SELECT '$1' AS quoted, E'\\'$1' AS escaped, $1::text AS value, $q$ $1 $q$ AS dollar, 1 AS "$1" -- $1
    /* $1 */`;
  await fc.assert(
    fc.asyncProperty(text.filter((s) => !unsendable(s)), async (s) => {
      expect(await inlinedRun(statement, [s])).toEqual(await bound(statement, [s]));
    }),
    runs,
  );
});

test('numbers, booleans, NULL and dates answer as bound, whatever the type they are read as: huge, NaN, infinite, negative zero', async () => {
  const number = fc.oneof(fc.double(), fc.integer(), fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), fc.constantFrom(NaN, Infinity, -Infinity, -0, 2 ** 53, 1e300, 5e-324));
  const value = fc.oneof(number, fc.boolean(), fc.constant(null), fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }));
  const type = fc.constantFrom('int4', 'int8', 'numeric', 'float8', 'text', 'bool', 'timestamptz');
  await fc.assert(
    fc.asyncProperty(value, type, async (v, t) => {
      const statement = `SELECT $1::${t} AS v`;
      expect(await inlinedRun(statement, [v])).toEqual(await bound(statement, [v]));
    }),
    runs,
  );
});

test('JSON, as text cast to jsonb or as an object, answers as bound, and reads back as sent', async () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  await fc.assert(
    fc.asyncProperty(json, fc.boolean(), async (v, asObject) => {
      // pg sends a JavaScript array as a PostgreSQL array, bound or inlined alike: only plain objects go as JSON.
      const param = asObject && typeof v === 'object' && v !== null && !Array.isArray(v) ? v : JSON.stringify(v);
      const answer = await inlinedRun('SELECT $1::jsonb AS v', [param]);
      expect(answer).toEqual(await bound('SELECT $1::jsonb AS v', [param]));
      // -0 is 0 in JSON; jsonb refuses \u0000, as bound.
      if ('rows' in answer) expect(answer.rows).toEqual([{ v: JSON.parse(JSON.stringify(v)) }]);
    }),
    runs,
  );
});

test('arrays of text answer as bound', async () => {
  const array = fc.array(fc.oneof(text.filter((s) => !unsendable(s)), fc.constant(null)), { maxLength: 6 });
  await fc.assert(
    fc.asyncProperty(array, async (v) => {
      expect(await inlinedRun('SELECT $1::text[] AS v', [v])).toEqual(await bound('SELECT $1::text[] AS v', [v]));
    }),
    runs,
  );
});

test('what cannot be inlined faithfully is refused by name: raw bytes, invalid dates, a missing parameter', () => {
  expect(() => inlined([CompiledQuery.raw('SELECT $1::bytea', [Buffer.from('x')])])).toThrow(/raw bytes/);
  expect(() => inlined([CompiledQuery.raw('SELECT $1::timestamptz', [new Date(NaN)])])).toThrow(/invalid date/);
  expect(() => inlined([CompiledQuery.raw('SELECT $2::text', ['x'])])).toThrow(/\$2 has no value/);
});
