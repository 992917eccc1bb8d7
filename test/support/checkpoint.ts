import { openCheckpoint, writeCheckpoint, type EncodedCheckpoint, type RowBatches } from '../../packages/hub/src/checkpoints/checkpoint-file.ts';

export type Row = Record<string, unknown>;

/** Every table of a checkpoint file, each row parsed: for tests comparing small tables whole. */
export async function checkpointTables(file: Uint8Array): Promise<Map<string, Row[]>> {
  const checkpoint = openCheckpoint(file);
  const tables = new Map<string, Row[]>();
  for (const { name } of checkpoint.tables) {
    const rows: Row[] = [];
    for await (const batch of checkpoint.rows(name, 100)) rows.push(...batch.map((line) => JSON.parse(line) as Row));
    tables.set(name, rows);
  }
  return tables;
}

/** A checkpoint file of the given tables' rows, each table in batches of `batch`. */
export function writeTables(position: number, tables: ReadonlyMap<string, readonly Row[]>, batch = 100): Promise<EncodedCheckpoint> {
  const batches = new Map<string, RowBatches>();
  for (const [name, rows] of tables) batches.set(name, inBatches(rows.map((r) => JSON.stringify(r)), batch));
  return writeCheckpoint(position, batches);
}

/** Lines handed out `size` at a time, as a cursor would. */
export async function* inBatches(lines: readonly string[], size: number): RowBatches {
  for (let i = 0; i < lines.length; i += size) yield lines.slice(i, i + size);
}
