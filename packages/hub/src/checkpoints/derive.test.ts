import { sql } from 'kysely';
import { fleetActivity, settledPosition } from '../../../../test/support/activity.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { allProjections } from '../projections/all.ts';
import { ownedTables } from '../projections/rebuild.ts';
import { decodeCheckpoint, encodeCheckpoint, type Checkpoint } from './checkpoint-file.ts';
import { deriveCheckpoint, storedCheckpoint } from './derive.ts';

// Issue 19, checkpointed projections: the projections' tables as of a position are derived from the log, from
// the newest stored checkpoint on, and equal what a replay of the whole log gives.
const suite = hubSuite();

/** Every owned table of the live projections, as a checkpoint holds them. */
async function liveTables(): Promise<Checkpoint['tables']> {
  const tables: Checkpoint['tables'] = new Map();
  for (const [table, keys] of ownedTables(allProjections)) {
    const order = sql.join(keys.map((k) => sql.id(k)));
    tables.set(table, (await sql<{ row: Record<string, unknown> }>`SELECT to_jsonb(t) AS row FROM ${sql.id(table)} t ORDER BY ${order}`.execute(suite.t.db)).rows.map((r) => r.row));
  }
  return tables;
}

test('issue 19: a checkpoint derived from the whole log equals the live tables, and one derived from a stored checkpoint equals one derived from nothing', async () => {
  await fleetActivity(suite.hub, 1);
  const first = await deriveCheckpoint(suite.t.db, allProjections, await settledPosition(suite.t.db));
  expect(first.tables).toEqual(await liveTables());

  const stored = encodeCheckpoint(first);
  await suite.t.db.insertInto('projection_checkpoints').values({ position: first.position, taken_at: new Date(), content: stored.bytes, sha256: stored.sha256 }).execute();
  expect(await storedCheckpoint(suite.t.db)).toEqual(first);

  await fleetActivity(suite.hub, 2);
  const through = await settledPosition(suite.t.db);
  const fromStored = await deriveCheckpoint(suite.t.db, allProjections, through);
  expect(fromStored.tables).toEqual(await liveTables());
  // The same from the whole log: a checkpoint keeps no state the log does not derive.
  await suite.t.db.deleteFrom('projection_checkpoints').execute();
  expect((await deriveCheckpoint(suite.t.db, allProjections, through)).tables).toEqual(fromStored.tables);
  // As of the first position, from the whole log: the first checkpoint again.
  expect((await deriveCheckpoint(suite.t.db, allProjections, first.position)).tables).toEqual(first.tables);
});

test('issue 19: a checkpoint file reads back exactly; an altered or cut one is refused as corrupt', async () => {
  const checkpoint = await deriveCheckpoint(suite.t.db, allProjections, await settledPosition(suite.t.db));
  const { bytes } = encodeCheckpoint(checkpoint);
  expect(decodeCheckpoint(bytes)).toEqual(checkpoint);
  const altered = Buffer.from(bytes);
  altered[altered.length - 10]! ^= 0xff;
  expect(() => decodeCheckpoint(altered)).toThrow(/corrupt/);
  expect(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 5))).toThrow(/corrupt/);
});
