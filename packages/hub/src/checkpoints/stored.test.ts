import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, roundTripsOf, type TestDatabase } from '../../../../test/support/database.ts';
import { storedCheckpointBytes } from './stored.ts';

// J3: the checkpoint a rebuild or an archive run starts from is read back byte for byte, a slice at a time.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  // Random bytes are not a checkpoint file: the database's proof at drop would refuse them.
  await t.db.deleteFrom('projection_checkpoints').execute();
  await t.drop();
});

const store = (position: number, content: Buffer) =>
  t.db.insertInto('projection_checkpoints').values({ position, taken_at: new Date(), content, sha256: 'x'.repeat(64) }).execute();

test('J3 the newest checkpoint at or before a position is read whole, a slice a round trip, in one snapshot; none before the first', async () => {
  // Incompressible, as zstd output is, and not a whole number of slices.
  const older = randomBytes(10_000);
  const newer = randomBytes(25_001);
  await store(100, older);
  await store(200, newer);
  expect(await storedCheckpointBytes(t.db, 99, 1_000)).toBeNull();
  expect(await storedCheckpointBytes(t.db, 150, 1_000)).toEqual({ position: 100, content: older });
  expect(await storedCheckpointBytes(t.db, undefined, 1_000)).toEqual({ position: 200, content: newer });
  expect(await storedCheckpointBytes(t.db)).toEqual({ position: 200, content: newer });

  // The column is stored out of line, uncompressed: a slice reads its own chunks.
  const storage = await sql<{ attstorage: string }>`SELECT attstorage FROM pg_attribute WHERE attrelid = 'projection_checkpoints'::regclass AND attname = 'content'`.execute(t.db);
  expect(storage.rows[0]!.attstorage).toBe('e');

  // BEGIN with the size, 26 slices, COMMIT: each slice its own round trip, the file never sent whole.
  const trips = await roundTripsOf(t.url, async (db) => {
    expect((await storedCheckpointBytes(db, undefined, 1_000))!.content.equals(newer)).toBe(true);
  });
  expect(trips.length).toBe(1 + 26 + 1);
});
