import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import type { Tables } from './tables.ts';
import { allProjections } from '../projections/all.ts';
import { ownedTables } from '../projections/rebuild.ts';
import { listSegments } from '../event-store/segments.ts';

// The SQL interface for SREs: the read-only role made by migration reads the log, every projection and
// every view (db/README.md), and nothing else.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** Runs `query` as fleetplane_reader; answers with the error code, or null when it was allowed. */
async function asReader(query: (trx: Kysely<Tables>) => Promise<unknown>): Promise<string | null> {
  try {
    await t.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL ROLE fleetplane_reader`.execute(trx);
      await query(trx);
    });
    return null;
  } catch (e) {
    return (e as { code?: string }).code ?? 'error';
  }
}

test('the reader role reads the events, every projection table and every view', async () => {
  const readable = ['events', 'event_history', 'event_chain', 'stream_heads', ...ownedTables(allProjections).keys(), 'drift', 'recovery_holds'];
  expect(readable).toEqual(expect.arrayContaining(['nodes', 'intents', 'rollouts', 'rollout_targets', 'config_approvals', 'config_versions']));
  for (const name of readable) expect([name, await asReader((trx) => sql`SELECT * FROM ${sql.table(name)} LIMIT 1`.execute(trx))]).toEqual([name, null]);
});

test('the reader role reads which migrations are applied, as verify and replay do before they read anything else', async () => {
  expect(await asReader((trx) => sql`SELECT version, name, checksum FROM schema_migrations`.execute(trx))).toBeNull();
});

test('the reader role reads the log\'s segments and its last position, as verify --archive does, and cannot move it', async () => {
  expect(await asReader((trx) => listSegments(trx))).toBeNull();
  expect(await asReader((trx) => sql`SELECT nextval('events_position_seq')`.execute(trx))).toBe('42501');
});

test('the reader role writes nothing and reads nothing else', async () => {
  const denied = '42501'; // insufficient_privilege
  expect(await asReader((trx) => sql`UPDATE nodes SET labels = '{}'`.execute(trx))).toBe(denied);
  expect(await asReader((trx) => sql`DELETE FROM intents`.execute(trx))).toBe(denied);
  expect(await asReader((trx) => sql`INSERT INTO settings VALUES ('x', '1', now())`.execute(trx))).toBe(denied);
  expect(await asReader((trx) => sql`SELECT * FROM idempotency_keys`.execute(trx))).toBe(denied);
});
