import pg from 'pg';
import { KEEPALIVE_IDLE_MS, SESSION_OPTIONS } from './connect.ts';

export interface ListenOptions {
  applicationName: string;
  onNotification(payload: string): void;
  /** After the connection was lost and is listening again: look for what was announced meanwhile. */
  onReconnected(): void;
  /** A lost connection, or a failed attempt to open it again. */
  onError(error: Error): void;
}

export interface Listener {
  stop(): Promise<void>;
}

/** How long a lost LISTEN connection waits before it is opened again (and between failed attempts). */
export const RELISTEN_MS = 1000;

/**
 * A LISTEN connection that outlives its server. When it is lost (a server restart, a failover, a terminated
 * backend) it is opened again a second later, and again until that works; then `onReconnected` runs, since
 * notifications sent while no connection listened are gone. The first connection must open: a caller that
 * cannot listen at start fails then.
 */
export async function listen(url: string, channel: string, options: ListenOptions): Promise<Listener> {
  let stopped = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const open = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: url,
      application_name: options.applicationName,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
      options: SESSION_OPTIONS,
    });
    client.on('notification', (n) => options.onNotification(n.payload ?? ''));
    client.on('error', (error) => {
      options.onError(error);
      client.end().catch(() => {});
      // Only the connection in use is replaced: one that failed while opening is retried by reopen.
      if (client === current && !stopped) {
        current = null;
        retry = setTimeout(reopen, RELISTEN_MS);
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (e) {
      client.end().catch(() => {});
      throw e;
    }
    current = client;
  };
  const reopen = (): void => {
    if (stopped) return;
    open().then(
      () => (stopped ? current?.end().catch(() => {}) : options.onReconnected()),
      (error: unknown) => {
        options.onError(error as Error);
        if (!stopped) retry = setTimeout(reopen, RELISTEN_MS);
      },
    );
  };

  await open();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await current?.end().catch(() => {});
    },
  };
}
