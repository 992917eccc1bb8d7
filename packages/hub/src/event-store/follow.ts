import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';
import type { Appends } from './appends.ts';
import { START, type LogCursor, type LoggedEvent } from './read-all.ts';

export interface FollowOptions {
  after?: LogCursor;
  /** Fallback poll: events appended without a notification (plain SQL, a lost NOTIFY) are found this late. */
  pollMs?: number;
  batchSize?: number;
  onEvents(events: LoggedEvent[], cursor: LogCursor): Promise<void> | void;
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

  const loop = (async () => {
    while (!stopped) {
      try {
        dirty = false;
        const page = await appends.read(db, cursor, options.batchSize ?? 500);
        if (page.events.length > 0) {
          await options.onEvents(page.events, page.cursor);
          cursor = page.cursor;
          continue;
        }
      } catch (e) {
        options.onError?.(e);
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
