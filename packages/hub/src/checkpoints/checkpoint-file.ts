import { createHash } from 'node:crypto';
import { CHECKPOINT_FILE, readContainer, readContainerHeader, writeContainer } from '../archive/segment-container.ts';
import { corrupt } from '../archive/segment-error.ts';

/** A row of a projection's table as PostgreSQL's `to_jsonb` gives it. */
export type CheckpointRow = Record<string, unknown>;

/** The projections' tables as of every event up to `position`, derived from the log. */
export interface Checkpoint {
  position: number;
  /** Table name → its rows, in its key order. */
  tables: Map<string, CheckpointRow[]>;
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
 */
export function encodeCheckpoint(checkpoint: Checkpoint): EncodedCheckpoint {
  const tables = [...checkpoint.tables].sort(([a], [b]) => (a < b ? -1 : 1));
  const sections = tables.map(([name, rows]): [string, Uint8Array] => [name, Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8')]);
  const bytes = writeContainer(CHECKPOINT_FILE, { position: checkpoint.position, tables: tables.map(([name, rows]) => ({ name, rows: rows.length })) }, sections);
  return { position: checkpoint.position, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export function decodeCheckpoint(file: Uint8Array): Checkpoint {
  const header = readContainerHeader(CHECKPOINT_FILE, file) as { position?: unknown; tables?: unknown };
  if (!Number.isSafeInteger(header.position) || !Array.isArray(header.tables)) throw corrupt('its header names no position and tables');
  const listed = header.tables as Array<{ name: string; rows: number }>;
  const container = readContainer(CHECKPOINT_FILE, file, listed.map((t) => t.name));
  const tables = new Map<string, CheckpointRow[]>();
  for (const { name, rows } of listed) {
    const text = Buffer.from(container.section(name)).toString('utf8');
    const parsed = text === '' ? [] : text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as CheckpointRow);
    if (parsed.length !== rows) throw corrupt(`table ${name} holds ${parsed.length} rows, its header says ${rows}`);
    tables.set(name, parsed);
  }
  return { position: header.position as number, tables };
}
