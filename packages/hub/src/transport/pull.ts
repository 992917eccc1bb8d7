import { connect } from '../database/connect.ts';
import { listen } from '../database/listener.ts';
import type { Transport } from './transport.ts';

const CHANNEL = 'fleetplane_attempts';

export interface PullTransport extends Transport {
  /** How many times the node's attempts have been announced so far: read it before leasing. */
  offers(nodeId: string): number;
  /**
   * Resolves when attempts may be waiting for the node, or after `ms`; false on timeout. With `since` (an
   * `offers` count read before leasing) an announcement made between that lease and this wait is not lost.
   */
  wait(nodeId: string, ms: number, signal: AbortSignal, since?: number): Promise<boolean>;
}

/**
 * The pull channel. Queued attempts are announced with NOTIFY (payload: node id) so that the Hub holding a
 * node's long poll wakes at once, whichever Hub queued them; the poll itself leases them (lease-attempts).
 */
export async function startPullTransport(url: string, onError: (e: Error) => void): Promise<PullTransport> {
  const waiters = new Map<string, Set<() => void>>();
  const announced = new Map<string, number>();
  const wake = (nodeId: string) => {
    announced.set(nodeId, (announced.get(nodeId) ?? 0) + 1);
    for (const w of waiters.get(nodeId) ?? []) w();
  };
  // Announcements made while the connection was lost are gone: every waiting poll looks for attempts.
  const listener = await listen(url, CHANNEL, {
    applicationName: 'fleetplane-attempts',
    onNotification: (nodeId) => nodeId && wake(nodeId),
    onReconnected: () => {
      for (const nodeId of waiters.keys()) wake(nodeId);
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
    offers: (nodeId) => announced.get(nodeId) ?? 0,
    wait(nodeId, ms, signal, since) {
      if (since !== undefined && (announced.get(nodeId) ?? 0) > since) return Promise.resolve(true);
      // A caller already gone fires no abort event: waiting for it would hold the handler until the deadline.
      if (signal.aborted) return Promise.resolve(false);
      return new Promise((resolve) => {
        const set = waiters.get(nodeId) ?? new Set();
        waiters.set(nodeId, set);
        const done = (woken: boolean) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', aborted);
          set.delete(wakeUp);
          if (set.size === 0) waiters.delete(nodeId);
          resolve(woken);
        };
        const wakeUp = () => done(true);
        const aborted = () => done(false);
        const timer = setTimeout(() => done(false), ms);
        set.add(wakeUp);
        signal.addEventListener('abort', aborted);
      });
    },
    async stop() {
      for (const set of waiters.values()) for (const w of set) w();
      await listener.stop();
      await notifier.close().catch(() => {});
    },
  };
}
