import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Appends } from './appends.ts';
import { START, type LogCursor, type LoggedEvent, type LogPage } from './read-all.ts';

export interface FollowOptions {
  after?: LogCursor;
  /** Fallback poll: events appended without a notification (plain SQL, a lost NOTIFY) are found this late. */
  pollMs?: number;
  batchSize?: number;
  onEvents(events: LoggedEvent[], cursor: LogCursor): Promise<void> | void;
  /**
   * A batch's onEvents that threw, each time; a read of the log that failed, once until a read succeeds again
   * (a database away fails every read, once a poll, until it is back).
   */
  onError?(error: unknown): void;
}

export interface Follower {
  /** The cursor after the last batch handed to onEvents. */
  readonly cursor: LogCursor;
  stop(): Promise<void>;
}

/**
 * Follows the log from a cursor, in commit-safe order (see readAll), woken by the Hub's appends listener
 * (LISTEN/NOTIFY) and polling as a safety net. onEvents runs for one batch at a time; the cursor moves only
 * after it returns.
 */
export function follow(db: Kysely<Tables>, appends: Appends, options: FollowOptions): Follower {
  const pollMs = options.pollMs ?? 1000;
  let cursor = options.after ?? START;
  let stopped = false;
  let wake: (() => void) | null = null;
  let dirty = true;
  const nudge = () => {
    dirty = true;
    wake?.();
  };
  const unsubscribe = appends.subscribe(nudge);

  let readFailing = false;
  const loop = (async () => {
    while (!stopped) {
      dirty = false;
      let page: LogPage | null = null;
      try {
        page = await appends.read(db, cursor, options.batchSize ?? 500);
        readFailing = false;
      } catch (e) {
        if (!readFailing) options.onError?.(e);
        readFailing = true;
      }
      if (page !== null && page.events.length > 0) {
        try {
          await options.onEvents(page.events, page.cursor);
          cursor = page.cursor;
          continue;
        } catch (e) {
          options.onError?.(e);
        }
      }
      if (dirty || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  })();

  return {
    get cursor() {
      return cursor;
    },
    async stop() {
      stopped = true;
      wake?.();
      unsubscribe();
      await loop;
    },
  };
}
