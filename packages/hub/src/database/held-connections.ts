import type pg from 'pg';

/** The connections checked out of a pool, which its watchdog closes when the server stops answering. */
export interface HeldConnections {
  /** Closes every connection checked out now; returns how many. */
  closeAll(): number;
}

/**
 * A server that does not accept a new connection in time (frozen, or cut off without a reset) does not answer
 * the statements already sent on connections held to it either, and TCP would take minutes to give those up:
 * keepalive probes are answered by a frozen server's kernel, and a partition is found after ten or more.
 * Closing them fails their statements now, as a lost connection's (the request is answered 503, a job
 * retries), and the pool opens new ones once the server is back.
 */
export function heldConnections(pool: pg.Pool): HeldConnections {
  const held = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => held.add(client));
  pool.on('release', (_error, client) => held.delete(client));
  pool.on('remove', (client) => held.delete(client));
  return {
    closeAll() {
      const closing = [...held];
      // Destroyed, not ended: an end waits for the server's answer to its goodbye, which will not come.
      for (const client of closing) (client as unknown as pg.Client).connection.stream.destroy();
      return closing.length;
    },
  };
}

/** node-postgres's error for a new connection the server did not accept within the pool's connect timeout. */
export const connectTimedOut = (error: unknown): boolean => error instanceof Error && error.message === 'Connection terminated due to connection timeout';
