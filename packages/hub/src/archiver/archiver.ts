import { sql } from 'kysely';
import { ADVISORY_LOCKS } from '../database/advisory-locks.ts';
import { archiveDueSegments, type ArchiveDeps } from './archive-segments.ts';

export interface ArchiverOptions extends ArchiveDeps {
  /** How long after one run ends the next begins (`log.archive_every`). */
  everyMs: number;
  /** Told of each run that failed; the next run tries again. */
  onFailure: (error: unknown) => void;
  /** Told of each run that did not fail (whether or not it had anything to archive). */
  onSuccess?: () => void;
}

export interface Archiver {
  /** Ends the run in progress before its next step and waits for it; no run starts after. */
  stop(): Promise<void>;
}

// One key for every Hub: Hubs sharing a database archive in turns; one that finds the lock taken skips its run.
const LOCK_KEY = ADVISORY_LOCKS.archive;

/**
 * Archives the log's due segments (archiveDueSegments) at start and then every `everyMs` after the last run
 * ended, one Hub at a time: a run holds a session advisory lock, which a Hub that dies releases with its
 * connection. A failed run (the archive unreachable, a segment refused) is told to onFailure, which the Hub
 * logs and counts, and the next run begins where it left off: commands and reports never wait on the archive.
 */
export function startArchiver(options: ArchiverOptions): Archiver {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function run(): Promise<void> {
    try {
      await options.db.connection().execute(async (conn) => {
        const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${LOCK_KEY}) AS locked`.execute(conn);
        if (!rows[0]!.locked) return;
        try {
          await archiveDueSegments(options, { signal: stopping.signal });
        } finally {
          await sql`SELECT pg_advisory_unlock(${LOCK_KEY})`.execute(conn).catch(() => {});
        }
      });
      options.onSuccess?.();
    } catch (error) {
      if (stopping.signal.aborted) return;
      options.onFailure(error);
    }
  }

  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = run().finally(() => {
        if (!stopping.signal.aborted) schedule(options.everyMs);
      });
    }, ms);
  };
  schedule(0);

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
