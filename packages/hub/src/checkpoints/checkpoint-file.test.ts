import { assembleContainer, CHECKPOINT_FILE, compressSection } from '../archive/segment-container.ts';
import { inBatches as batches } from '../../../../test/support/checkpoint.ts';
import { openCheckpoint, readEveryRow, writeCheckpoint } from './checkpoint-file.ts';

// SPEC J3 (issue 19): a checkpoint file is written and read a batch of rows at a time, so a table's size bounds
// nothing the Hub holds but the compressed file; what comes back is exactly what went in.

async function readAll(file: Uint8Array, table: string, batch: number): Promise<string[][]> {
  const read: string[][] = [];
  for await (const rows of openCheckpoint(file).rows(table, batch)) read.push(rows);
  return read;
}

/** A file whose header says `rows` for table `t` and whose section holds `text`. */
function fileWith(rows: number, text: string): Buffer {
  return assembleContainer(CHECKPOINT_FILE, { position: 7, tables: [{ name: 't', rows }] }, [compressSection('t', Buffer.from(text, 'utf8'))]);
}

test('J3: rows written in batches of one size read back in batches of another, lines split across decompressed chunks included', async () => {
  // Rows of differing lengths, with characters of two to four bytes, past several of zstd's output chunks.
  const intents = Array.from({ length: 12_345 }, (_, i) => JSON.stringify({ intent_id: i, note: 'é€😀'.repeat(i % 17), pad: 'x'.repeat(i % 301) }));
  const written = await writeCheckpoint(42, new Map([['nodes', batches(['{"node_id": "a"}'], 10)], ['intents', batches(intents, 1000)], ['empty', batches([], 10)]]));

  const checkpoint = openCheckpoint(written.bytes);
  expect(checkpoint.position).toBe(42);
  expect(checkpoint.tables).toEqual([{ name: 'empty', rows: 0 }, { name: 'intents', rows: 12_345 }, { name: 'nodes', rows: 1 }]);
  const read = await readAll(written.bytes, 'intents', 5000);
  expect(read.map((b) => b.length)).toEqual([5000, 5000, 2345]);
  expect(read.flat()).toEqual(intents);
  expect(await readAll(written.bytes, 'empty', 10)).toEqual([]);
  expect(await readAll(written.bytes, 'nodes', 10)).toEqual([['{"node_id": "a"}']]);
  await expect(readEveryRow(checkpoint)).resolves.toBeUndefined();
});

test('J3: a section whose row count is not its header\'s, or whose last row is cut, is refused as corrupt', async () => {
  await expect(readAll(fileWith(3, '{}\n{}\n'), 't', 10)).rejects.toThrow('table t holds 2 rows, its header says 3');
  await expect(readAll(fileWith(1, '{}\n{}\n'), 't', 10)).rejects.toThrow('table t holds more than the 1 rows its header says');
  await expect(readAll(fileWith(2, '{}\n{}'), 't', 10)).rejects.toThrow("table t's last row does not end with a newline");
  expect(() => openCheckpoint(assembleContainer(CHECKPOINT_FILE, { position: 7, tables: [{ name: 't', rows: -1 }] }, [compressSection('t', Buffer.alloc(0))]))).toThrow(
    'its header names no position and tables',
  );
});
