import { sql, type Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/**
 * Bytes a slice. The driver hands a `bytea` over as hex text, twice its size, then decodes it: read whole, a
 * checkpoint would be held three times over. A slice at a time, the Hub holds the file once and a slice's text.
 */
export const SLICE_BYTES = 4 * 1024 * 1024;

export interface StoredCheckpointBytes {
  position: number;
  content: Buffer;
}

/**
 * The newest checkpoint file the database keeps at or before `position` (null: none), read a slice at a time,
 * in one snapshot: in the caller's transaction, else in a REPEATABLE READ one of its own, so an archiver
 * replacing the checkpoint meanwhile cannot tear it. The column is stored uncompressed out of line (migration
 * 0021), so each slice reads only its own TOAST chunks.
 */
export async function storedCheckpointBytes(
  db: Kysely<Tables>,
  position: number = Number.MAX_SAFE_INTEGER,
  sliceBytes: number = SLICE_BYTES,
): Promise<StoredCheckpointBytes | null> {
  if (!db.isTransaction) return db.transaction().setIsolationLevel('repeatable read').execute((trx) => storedCheckpointBytes(trx, position, sliceBytes));
  const head = await db
    .selectFrom('projection_checkpoints')
    .select(['position', sql<number>`octet_length(content)`.as('size')])
    .where('position', '<=', position)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!head) return null;
  const content = Buffer.alloc(head.size);
  for (let offset = 0; offset < content.length; offset += sliceBytes) {
    const { slice } = await db
      .selectFrom('projection_checkpoints')
      .select(sql<Buffer>`substring(content from ${offset + 1} for ${sliceBytes})`.as('slice'))
      .where('position', '=', head.position)
      .executeTakeFirstOrThrow();
    slice.copy(content, offset);
  }
  return { position: head.position, content };
}
