import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newestRecord } from '../archive/records.ts';
import type { Tables } from '../database/tables.ts';
import { storedCheckpointBytes } from './stored.ts';

export interface CheckpointCheck {
  /** The position of the checkpoint verify and rebuild start from (null: none, they start from empty tables). */
  position: number | null;
  /** Why it is not the one to start from; null when it is. */
  problem: string | null;
}

/**
 * Whether the newest stored checkpoint, which verify and rebuild start from, is the one the log recorded: the
 * newest LogSegmentArchived names its position (the archived history's end) and its file's SHA-256. A
 * checkpoint altered in the database, or one missing while history is archived, would make a rebuild derive
 * something other than the log. Both are read in one snapshot (the caller's transaction, else a REPEATABLE READ
 * one of its own): the archiver writes them in one transaction, which read apart could fall between them.
 */
export async function checkStoredCheckpoint(db: Kysely<Tables>): Promise<CheckpointCheck> {
  if (!db.isTransaction) return db.transaction().setIsolationLevel('repeatable read').execute((trx) => checkStoredCheckpoint(trx));
  const record = await newestRecord(db);
  const stored = await storedCheckpointBytes(db);
  const position = stored?.position ?? null;
  if (!record) return { position, problem: stored ? `the checkpoint at position ${position} is recorded by no LogSegmentArchived` : null };
  if (!stored) return { position, problem: `no checkpoint is stored, while the log is archived through position ${record.last_position}` };
  if (position !== record.last_position) {
    return { position, problem: `the newest checkpoint is at position ${position}, while the log is archived through position ${record.last_position}` };
  }
  const sha256 = createHash('sha256').update(stored.content).digest('hex');
  if (sha256 !== record.checkpoint.sha256) {
    return { position, problem: `the checkpoint at position ${position} has SHA-256 ${sha256}, the archived one ${record.checkpoint.sha256}` };
  }
  return { position, problem: null };
}
