import { stalePlan } from './connection.ts';

/**
 * Whether an error means the database is away rather than that the request or the Hub is wrong: the server
 * restarting, shutting down or starting up, refusing connections, a connection lost mid-statement, or a
 * connection that could not be opened in time; or a session whose prepared statement a migration made stale,
 * which is closed and replaced like a lost one. Such a request is answered 503 (clients retry it), never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // Read by shape, not `instanceof`: errors of the network layer may come from another realm (a test's sandbox).
  for (let e = error as Failure | undefined, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = e.cause as Failure | undefined, depth++) {
    const { code, message, errors } = e;
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith(CONNECTION_EXCEPTION) || NETWORK_CODES.has(code))) return true;
    if (stalePlan(e)) return true;
    if (typeof message === 'string' && LOST_CONNECTION_MESSAGES.some((m) => message.startsWith(m))) return true;
    if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
  }
  return false;
}

interface Failure {
  code?: unknown;
  message?: unknown;
  /** An AggregateError's: a connection to every address of a host name refused. */
  errors?: unknown;
  cause?: unknown;
}

/** SQLSTATE class 08: connection exception. */
const CONNECTION_EXCEPTION = '08';
/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up, shutting down, in recovery), too_many_connections. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
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
