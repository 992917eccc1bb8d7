import type { Kysely } from 'kysely';
import { listen } from '../database/listener.ts';
import type { Tables } from '../database/tables.ts';
import { EVENTS_CHANNEL } from './notify.ts';
import { READ_DATA_BYTES, readAll, type LogCursor, type LogPage } from './read-all.ts';

/** Every Hub's appends, as wake-ups for this Hub's log followers, and the reads they prompt. */
export interface Appends {
  /** Calls `wake` after every announced append (and after a lost connection listens again); returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
  /**
   * A page of the log (readAll), read once for every follower that asks for the same one at once: woken
   * together at the log's end, they would otherwise each read the same page, per append.
   */
  read(db: Kysely<Tables>, after: LogCursor, limit: number): Promise<LogPage>;
  stop(): Promise<void>;
}

/**
 * One LISTEN connection per Hub for all its log followers. A connection per follower would let every open
 * console page and `events tail` hold a server connection of its own: a few dozen of them, on any Hub, used up
 * max_connections, and then every Hub's requests were answered 503.
 */
export async function listenForAppends(url: string, onError: (error: Error) => void, onListening: () => void = () => {}): Promise<Appends> {
  const subscribers = new Set<() => void>();
  /** How many wake-ups so far: a read shared only within one sees every append announced before it. */
  let wakeUps = 0;
  const wakeAll = () => {
    wakeUps += 1;
    for (const wake of subscribers) wake();
  };
  const reading = new WeakMap<Kysely<Tables>, Map<string, Promise<LogPage>>>();
  // Notifications sent while the connection was lost are gone: waking every follower makes it read the log.
  const listener = await listen(url, EVENTS_CHANNEL, {
    applicationName: 'fleetplane-follow',
    onNotification: wakeAll,
    onReconnected: () => {
      onListening();
      wakeAll();
    },
    onError,
  });
  return {
    subscribe(wake) {
      subscribers.add(wake);
      return () => subscribers.delete(wake);
    },
    read(db, after, limit) {
      const reads = reading.get(db) ?? new Map<string, Promise<LogPage>>();
      reading.set(db, reads);
      // A read begun before the latest wake-up may miss its append: a follower woken since starts its own.
      const key = `${wakeUps} ${after.txId} ${after.position} ${limit}`;
      let page = reads.get(key);
      if (!page) {
        page = readAll(db, after, limit, {}, { maxDataBytes: READ_DATA_BYTES }).finally(() => reads.delete(key));
        reads.set(key, page);
      }
      return page;
    },
    stop: () => listener.stop(),
  };
}
