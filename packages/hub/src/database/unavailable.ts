import { stalePlan } from './connection.ts';

/**
 * Why the database cannot serve, as far as an error says:
 * - `unreachable`: the server restarting, shutting down or starting up, refusing connections, a connection lost
 *   mid-statement or not opened in time; or a session whose prepared statement a migration made stale, which
 *   is closed and replaced like a lost one;
 * - `read_only`: the server refuses writes (a standby the Hub's address reaches after a failover, or
 *   `default_transaction_read_only`);
 * - `out_of_resources`: its disk, memory or connections are exhausted (SQLSTATE class 53);
 * - `canceled`: the server canceled the statement (a `statement_timeout` or `lock_timeout` an SRE set on the role
 *   or database, or `pg_cancel_backend`); its transaction rolled back, so nothing of it holds.
 */
export type Unavailability = 'unreachable' | 'read_only' | 'out_of_resources' | 'canceled';

/**
 * Why the database is away rather than the request or the Hub wrong, or null when the error is not that. Such a
 * request is answered 503 (clients retry it), never 500, and background work logs it in one warn line, its
 * repeats folded (repeated-failures.ts).
 */
export function databaseUnavailability(error: unknown): Unavailability | null {
  // Read by shape, not `instanceof`: errors of the network layer may come from another realm (a test's sandbox).
  for (let e = error as Failure | undefined, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = e.cause as Failure | undefined, depth++) {
    const { code, message, errors } = e;
    if (code === READ_ONLY_TRANSACTION) return 'read_only';
    if (typeof code === 'string' && code.startsWith(INSUFFICIENT_RESOURCES)) return 'out_of_resources';
    if (typeof code === 'string' && CANCELED_SQLSTATES.has(code)) return 'canceled';
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith(CONNECTION_EXCEPTION) || NETWORK_CODES.has(code))) return 'unreachable';
    if (stalePlan(e)) return 'unreachable';
    if (typeof message === 'string' && LOST_CONNECTION_MESSAGES.some((m) => message.startsWith(m))) return 'unreachable';
    if (Array.isArray(errors)) {
      const inner = errors.map(databaseUnavailability).find((u) => u !== null);
      if (inner) return inner;
    }
  }
  return null;
}

/** What the Hub says of its database, by reason, in its log lines and 503 answers. */
export const UNAVAILABLE_SAYS: Readonly<Record<Unavailability, string>> = {
  unreachable: 'is unavailable',
  read_only: 'refuses writes (read-only: a standby, or default_transaction_read_only)',
  out_of_resources: 'is out of resources (disk, memory or connections)',
  canceled: 'canceled the statement (statement_timeout, lock_timeout or pg_cancel_backend)',
};

interface Failure {
  code?: unknown;
  message?: unknown;
  /** An AggregateError's: a connection to every address of a host name refused. */
  errors?: unknown;
  cause?: unknown;
}

/** SQLSTATE class 08: connection exception. */
const CONNECTION_EXCEPTION = '08';
/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up, shutting down, in recovery). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
/** read_only_sql_transaction: a write on a standby, or with default_transaction_read_only on. */
const READ_ONLY_TRANSACTION = '25006';
/** SQLSTATE class 53: disk_full, out_of_memory, too_many_connections, configuration_limit_exceeded. */
const INSUFFICIENT_RESOURCES = '53';
/** query_canceled (statement_timeout, pg_cancel_backend) and lock_not_available (lock_timeout). */
const CANCELED_SQLSTATES = new Set(['57014', '55P03']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/**
 * node-postgres's own errors for a connection that ended or could not be opened in time, and pg-boss's for its
 * LISTEN connection whose server stopped answering or hung up (none carry a code).
 */
const LOST_CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
  'LISTEN/NOTIFY heartbeat timed out',
  'LISTEN/NOTIFY connection ended',
];
