import { connect } from '../database/connect.ts';
import { listen } from '../database/listener.ts';
import type { Transport } from './transport.ts';

const CHANNEL = 'fleetplane_attempts';

/** A long poll's interest in its node's announcements, from before its first look until it answers. */
export interface Watch {
  /**
   * Resolves true once the node's attempts were announced since the watch began or since its last wait woke,
   * at once when that already happened; false after `ms` or when `signal` aborts.
   */
  wait(ms: number, signal: AbortSignal): Promise<boolean>;
  /** The poll answered: its node is forgotten once no poll on this Hub watches it. */
  close(): void;
}

export interface PullTransport extends Transport {
  /** Starts watching the node: take it before leasing, so that an announcement made meanwhile is not lost. */
  watch(nodeId: string): Watch;
  /** How many nodes the polls held on this Hub watch now. */
  watched(): number;
}

interface Watcher {
  /** Announced since the last wake-up this watcher's wait took. */
  announced: boolean;
  wake: (() => void) | null;
}

/**
 * The pull channel. Queued attempts are announced with NOTIFY (payload: node id) so that the Hub holding a
 * node's long poll wakes at once, whichever Hub queued them; the poll itself leases them (lease-attempts).
 * Every Hub hears every node's announcements: it keeps only those of the nodes whose polls it holds, so what
 * it keeps follows its open polls, not every node that ever had an attempt (retired ones included).
 */
export async function startPullTransport(url: string, onError: (e: Error) => void, onListening: () => void = () => {}): Promise<PullTransport> {
  const watchers = new Map<string, Set<Watcher>>();
  const wake = (nodeId: string) => {
    for (const w of watchers.get(nodeId) ?? []) {
      w.announced = true;
      w.wake?.();
    }
  };
  // Announcements made while the connection was lost are gone: every poll held looks for attempts.
  const listener = await listen(url, CHANNEL, {
    applicationName: 'fleetplane-attempts',
    onNotification: (nodeId) => nodeId && wake(nodeId),
    onReconnected: () => {
      onListening();
      for (const nodeId of watchers.keys()) wake(nodeId);
    },
    onError,
  });
  const notifier = connect(url, { max: 2, applicationName: 'fleetplane-attempts', onConnectionLost: onError });

  return {
    scope: 'pilot_tunnel',
    async offer(nodeIds) {
      if (nodeIds.length === 0) return;
      for (const nodeId of nodeIds) wake(nodeId); // a poll on this Hub needs no round trip
      await notifier.pool.query('SELECT pg_notify($1, node_id) FROM unnest($2::text[]) AS n(node_id)', [CHANNEL, nodeIds]);
    },
    watch(nodeId) {
      const watcher: Watcher = { announced: false, wake: null };
      const set = watchers.get(nodeId) ?? new Set();
      watchers.set(nodeId, set.add(watcher));
      return {
        wait(ms, signal) {
          // A caller already gone fires no abort event: waiting for it would hold the handler until the deadline.
          if (watcher.announced || signal.aborted) return Promise.resolve(takeAnnounced(watcher));
          return new Promise((resolve) => {
            const done = () => {
              clearTimeout(timer);
              signal.removeEventListener('abort', done);
              watcher.wake = null;
              resolve(takeAnnounced(watcher));
            };
            const timer = setTimeout(done, ms);
            watcher.wake = done;
            signal.addEventListener('abort', done);
          });
        },
        close() {
          set.delete(watcher);
          if (set.size === 0 && watchers.get(nodeId) === set) watchers.delete(nodeId);
        },
      };
    },
    watched: () => watchers.size,
    async stop() {
      for (const set of watchers.values()) for (const w of set) w.wake?.();
      await listener.stop();
      await notifier.close().catch(() => {});
    },
  };
}

/** Whether the watcher was announced to, which its next wait then no longer sees. */
function takeAnnounced(watcher: Watcher): boolean {
  const announced = watcher.announced;
  watcher.announced = false;
  return announced;
}
