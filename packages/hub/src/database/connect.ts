import pg from 'pg';
import { Kysely } from 'kysely';
import { plannedDialect } from './dialect.ts';
import type { Tables } from './tables.ts';

export type Db = Kysely<Tables>;

export interface Database {
  db: Db;
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

/** How long opening a connection may take before the request that wanted it fails. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long a connection may stay silent before TCP keepalive probes its peer. */
export const KEEPALIVE_IDLE_MS = 10_000;
/**
 * How long the server keeps a Hub's session that sits idle inside a transaction before it ends it. A Hub
 * stopped in the middle of one without closing its connection (its process frozen or paused, its machine cut
 * off or powered off) would otherwise keep that transaction's locks, and every other Hub's writes to the same
 * stream or node would wait, until TCP found the peer gone, hours later on a server's default keepalive. The
 * Hub's own transactions never wait on anything but the server between their statements, and an answer's read
 * (http/snapshot-read.ts) on the Hub's thread writing its chunks and on its caller taking them, at most
 * SEND_STALL_MS (http/json-answer.ts).
 */
export const IDLE_IN_TRANSACTION_MS = 10_000;

/**
 * Settings every session the Hub opens gives itself at connect (the startup packet's `options`, which outrank a
 * role's or a database's defaults; a `DATABASE_URL` that names `options` of its own replaces them):
 * - `idle_session_timeout = 0`: its sessions are idle by design, a LISTEN connection for as long as the Hub runs,
 *   a pooled one until the pool closes it. A server-wide timeout, set to reap clients that leak connections,
 *   would end them again and again (each an error from the driver and a reconnection during which announcements
 *   are lost).
 * - `default_transaction_isolation = 'read committed'`: the Hub's transactions lock the rows they decide on and
 *   then read them as committed; a database defaulting to serializable or repeatable read aborted them with
 *   serialization failures the Hub does not retry. A transaction that wants a snapshot asks for it in its BEGIN.
 * - `datestyle = ISO`: the driver reads timestamps in ISO form; a database set to another style (`SQL, DMY`)
 *   made every timestamp unreadable.
 */
export const SESSION_OPTIONS = '-c idle_session_timeout=0 -c default_transaction_isolation=read\\ committed -c datestyle=ISO';

// int8 (positions, versions, sequences) as JS numbers: they stay far below 2^53.
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export interface ConnectOptions {
  max?: number;
  /** The server's bound on a session idle in a transaction (IDLE_IN_TRANSACTION_MS for the Hub's); default: none. */
  idleInTransactionMs?: number;
  applicationName?: string;
  /** Told when a connection is lost (a server restart, a failover, a terminated backend); default: nothing. */
  onConnectionLost?: (error: Error) => void;
  /**
   * Told how many prepared statements a session deallocated to stay within its bound (database/connection.ts,
   * BY_TEXT_LIMIT); default: nothing. Steady growth means the Hub meets more statement texts than a session keeps.
   */
  onDeallocated?: (count: number) => void;
}

export function connect(url: string, options: ConnectOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    types,
    application_name: options.applicationName ?? 'fleetplane-hub',
    // A server that stops answering (a network partition, a host gone) fails a new connection in time instead
    // of holding the request forever (it is answered 503); TCP keepalive finds an idle connection's peer gone.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    options: SESSION_OPTIONS,
    ...(options.idleInTransactionMs ? { idle_in_transaction_session_timeout: options.idleInTransactionMs } : {}),
  });
  const lost = options.onConnectionLost ?? (() => {});
  // A client losing its server must not crash the Hub. The pool's listener covers idle clients only, so every
  // client gets its own for its whole life, checked out or not; the statement in flight fails on its own, and
  // the pool replaces the client when it is released.
  pool.on('error', lost);
  // Each connection until its socket has closed: the pool's end resolves once it has asked them to close.
  const closing = new Set<Promise<void>>();
  pool.on('connect', (client) => {
    client.on('error', lost);
    const closed: Promise<void> = new Promise((ended) => client.once('end', ended)).then(() => void closing.delete(closed));
    closing.add(closed);
  });
  const db = new Kysely<Tables>({ dialect: plannedDialect(pool, options.onDeallocated ?? (() => {})) });
  return {
    db,
    pool,
    url,
    // Kysely ends the pool only if it ran a query itself; the pool may have been used directly. Resolves once
    // every connection has closed, so that a server stopped next ends no session of ours (and says so).
    async close() {
      await db.destroy();
      if (!pool.ended) await pool.end();
      await Promise.all(closing);
    },
  };
}
