import { createHash } from 'node:crypto';
import { assembleContainer, CHECKPOINT_FILE, compressSectionStream, readContainer, readContainerHeader, type CompressedSection } from '../archive/segment-container.ts';
import { corrupt } from '../archive/segment-error.ts';

/** A table's rows in its key order, a batch at a time: each row one line of JSON, PostgreSQL's `to_jsonb` of it. */
export type RowBatches = AsyncIterable<string[]>;

export interface CheckpointTable {
  name: string;
  rows: number;
}

/** A checkpoint file opened: its header read, its rows decompressed only as they are read. */
export interface Checkpoint {
  /** The tables are as of every event up to it. */
  position: number;
  /** Every table, by name in byte order, with its row count. */
  tables: readonly CheckpointTable[];
  /** The table's rows in its key order, `batch` at a time; a count other than the header's is corrupt. */
  rows(table: string, batch: number): AsyncGenerator<string[]>;
}

export interface EncodedCheckpoint {
  position: number;
  bytes: Buffer;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
}

/**
 * A checkpoint file (docs/archive-format.md): the archive's container with the magic `FLEETCKP`, a header
 * naming the position and each table with its row count, and one section per table: its rows as JSON lines.
 * Written as the rows come, so that only the compressed sections are ever held whole, never a table's rows:
 * a table may hold millions.
 */
export async function writeCheckpoint(position: number, tables: ReadonlyMap<string, RowBatches>): Promise<EncodedCheckpoint> {
  const sections: CompressedSection[] = [];
  const listed: CheckpointTable[] = [];
  for (const name of [...tables.keys()].sort((a, b) => (a < b ? -1 : 1))) {
    let rows = 0;
    const lines = async function* () {
      for await (const batch of tables.get(name)!) {
        if (batch.length === 0) continue;
        rows += batch.length;
        yield Buffer.from(batch.join('\n') + '\n', 'utf8');
      }
    };
    sections.push(await compressSectionStream(name, lines()));
    listed.push({ name, rows });
  }
  const bytes = assembleContainer(CHECKPOINT_FILE, { position, tables: listed }, sections);
  return { position, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export function openCheckpoint(file: Uint8Array): Checkpoint {
  const header = readContainerHeader(CHECKPOINT_FILE, file) as { position?: unknown; tables?: unknown };
  if (!Number.isSafeInteger(header.position) || !Array.isArray(header.tables) || !header.tables.every(isTable)) {
    throw corrupt('its header names no position and tables');
  }
  const tables = header.tables as CheckpointTable[];
  const container = readContainer(CHECKPOINT_FILE, file, tables.map((t) => t.name));
  return {
    position: header.position as number,
    tables,
    async *rows(table, batch) {
      const expected = tables.find((t) => t.name === table)?.rows;
      if (expected === undefined) throw corrupt(`it holds no table ${table}`);
      let count = 0;
      const tooMany = () => corrupt(`table ${table} holds more than the ${expected} rows its header says`);
      let lines: string[] = [];
      let rest: Buffer | null = null;
      for await (const chunk of container.sectionChunks(table)) {
        const data: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
        let start = 0;
        for (let end = data.indexOf(0x0a); end !== -1; end = data.indexOf(0x0a, start)) {
          lines.push(data.toString('utf8', start, end));
          start = end + 1;
          if (lines.length === batch) {
            if ((count += lines.length) > expected) throw tooMany();
            yield lines;
            lines = [];
          }
        }
        rest = start < data.length ? data.subarray(start) : null;
      }
      if (rest) throw corrupt(`table ${table}'s last row does not end with a newline`);
      if ((count += lines.length) > expected) throw tooMany();
      if (lines.length > 0) yield lines;
      if (count !== expected) throw corrupt(`table ${table} holds ${count} rows, its header says ${expected}`);
    },
  };
}

/** Reads every row of every table, as a replay starting from it would: a file that would fail one fails here. */
export async function readEveryRow(checkpoint: Checkpoint): Promise<void> {
  for (const { name } of checkpoint.tables) {
    for await (const _ of checkpoint.rows(name, READ_BATCH));
  }
}

/** Rows a batch when only reading through. */
const READ_BATCH = 5000;

function isTable(t: unknown): t is CheckpointTable {
  const table = t as Partial<CheckpointTable>;
  return typeof t === 'object' && t !== null && typeof table.name === 'string' && Number.isSafeInteger(table.rows) && table.rows! >= 0;
}
