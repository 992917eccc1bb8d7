import { sql } from 'kysely';
import { fleetActivity, settledPosition } from '../../../../test/support/activity.ts';
import { hubSuite } from '../../../../test/support/hub-suite.ts';
import { allProjections } from '../projections/all.ts';
import { ownedTables } from '../projections/rebuild.ts';
import { checkpointTables, type Row } from '../../../../test/support/checkpoint.ts';
import { openCheckpoint, readEveryRow } from './checkpoint-file.ts';
import { deriveCheckpoint, storedCheckpoint } from './derive.ts';

// Issue 19, checkpointed projections: the projections' tables as of a position are derived from the log, from
// the newest stored checkpoint on, and equal what a replay of the whole log gives.
const suite = hubSuite();

/** Every owned table of the live projections, as a checkpoint holds them. */
async function liveTables(): Promise<Map<string, Row[]>> {
  const tables = new Map<string, Row[]>();
  for (const [table, keys] of ownedTables(allProjections)) {
    const order = sql.join(keys.map((k) => sql.id(k)));
    tables.set(table, (await sql<{ row: Row }>`SELECT to_jsonb(t) AS row FROM ${sql.id(table)} t ORDER BY ${order}`.execute(suite.t.db)).rows.map((r) => r.row));
  }
  return tables;
}

test('issue 19: a checkpoint derived from the whole log equals the live tables, and one derived from a stored checkpoint equals one derived from nothing', async () => {
  await fleetActivity(suite.hub, 1);
  const first = await deriveCheckpoint(suite.t.db, allProjections, await settledPosition(suite.t.db));
  const firstTables = await checkpointTables(first.bytes);
  expect(firstTables).toEqual(await liveTables());

  await suite.t.db.insertInto('projection_checkpoints').values({ position: first.position, taken_at: new Date(), content: first.bytes, sha256: first.sha256 }).execute();
  expect((await storedCheckpoint(suite.t.db))?.position).toBe(first.position);

  await fleetActivity(suite.hub, 2);
  const through = await settledPosition(suite.t.db);
  const fromStored = await deriveCheckpoint(suite.t.db, allProjections, through);
  expect(await checkpointTables(fromStored.bytes)).toEqual(await liveTables());
  // The same from the whole log, byte for byte: a checkpoint keeps no state the log does not derive.
  await suite.t.db.deleteFrom('projection_checkpoints').execute();
  expect((await deriveCheckpoint(suite.t.db, allProjections, through)).sha256).toBe(fromStored.sha256);
  // As of the first position, from the whole log: the first checkpoint again.
  expect((await deriveCheckpoint(suite.t.db, allProjections, first.position)).sha256).toBe(first.sha256);
});

test('issue 19: a checkpoint file reads back exactly; an altered or cut one is refused as corrupt', async () => {
  const { bytes } = await deriveCheckpoint(suite.t.db, allProjections, await settledPosition(suite.t.db));
  expect(await checkpointTables(bytes)).toEqual(await liveTables());
  const altered = Buffer.from(bytes);
  altered[altered.length - 10]! ^= 0xff;
  await expect(readEveryRow(openCheckpoint(altered))).rejects.toThrow(/corrupt/);
  expect(() => openCheckpoint(bytes.subarray(0, bytes.length - 5))).toThrow(/corrupt/);
});
