import { listen } from '../database/listener.ts';
import { EVENTS_CHANNEL } from './notify.ts';

/** Every Hub's appends, as wake-ups for this Hub's log followers. */
export interface Appends {
  /** Calls `wake` after every announced append (and after a lost connection listens again); returns the unsubscribe. */
  subscribe(wake: () => void): () => void;
  stop(): Promise<void>;
}

/**
 * One LISTEN connection per Hub for all its log followers. A connection per follower would let every open
 * console page and `events tail` hold a server connection of its own: a few dozen of them, on any Hub, used up
 * max_connections, and then every Hub's requests were answered 503.
 */
export async function listenForAppends(url: string, onError: (error: Error) => void): Promise<Appends> {
  const subscribers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of subscribers) wake();
  };
  // Notifications sent while the connection was lost are gone: waking every follower makes it read the log.
  const listener = await listen(url, EVENTS_CHANNEL, { applicationName: 'fleetplane-follow', onNotification: wakeAll, onReconnected: wakeAll, onError });
  return {
    subscribe(wake) {
      subscribers.add(wake);
      return () => subscribers.delete(wake);
    },
    stop: () => listener.stop(),
  };
}
