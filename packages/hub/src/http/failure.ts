import { OVERLOADED, OVERLOADED_RETRY_AFTER_SECONDS } from './admission.ts';
import { databaseUnavailability, UNAVAILABLE_SAYS } from '../database/unavailable.ts';
import type { Duty } from '../repeated-failures.ts';
import type { HubContext } from './context.ts';
import { HttpError, type ErrorEnvelope } from './errors.ts';
import { ABORTED, requestError } from './request-error.ts';

/** Seconds a client waits before it retries a request answered 503 while the database was away. */
export const RETRY_AFTER_SECONDS = 2;

/**
 * The message of a request's failure. While the database is away every request fails alike: folded as a
 * duty's repeats (repeated-failures.ts), its first 503 said, then a line a minute; each one is still in its
 * `request` line and fleetplane_http_requests_total. A 500 is said every time.
 */
export const REQUEST_FAILED: Duty = { name: 'requests', failed: 'request failed' };

/** Where a request failed, for the answer and the log. */
export interface FailedRequest {
  correlationId: string;
  method: string;
  path: string;
}

/** The answer to a failed request: its status, error envelope and headers. */
export interface Failure {
  status: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
}

/**
 * The answer to a request that failed: its error envelope, with the status and stable code of an HttpError
 * or of a request its reader refused (request-error.ts); 503 with Retry-After while the database is away, and
 * 429 `overloaded` with Retry-After when the request's class had no place for it (admission.ts);
 * anything else is a 500. Both are logged with the correlation id (REQUEST_FAILED).
 */
export function failure(hub: HubContext, err: unknown, at: FailedRequest): Failure {
  const error = asHttpError(err);
  if (error.status >= 500) {
    hub.duties.failed(REQUEST_FAILED, err, { correlation_id: at.correlationId, method: at.method, path: at.path });
  } else if (error.code === ABORTED) {
    // Its answer reaches no one, so no request line is logged for it: this line is its trace.
    hub.logger.info('request body aborted by the client', { correlation_id: at.correlationId, method: at.method, path: at.path });
  }
  return {
    status: error.status,
    body: { code: error.code, message: error.message, correlation_id: at.correlationId, details: error.details },
    headers: retryAfter(error),
  };
}

/** Retry-After on a 503, and on a request its class had no place for (admission.ts). */
function retryAfter(error: HttpError): Record<string, string> {
  if (error.status === 503) return { 'retry-after': String(RETRY_AFTER_SECONDS) };
  if (error.code === OVERLOADED) return { 'retry-after': String(OVERLOADED_RETRY_AFTER_SECONDS) };
  return {};
}

function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  // First: a client's own connection failing (an aborted body) carries the network's codes too.
  const refused = requestError(err);
  if (refused) return refused;
  const unavailable = databaseUnavailability(err);
  if (unavailable) return new HttpError(503, 'database_unavailable', `the Hub's database ${UNAVAILABLE_SAYS[unavailable]}; retry later`, { reason: unavailable });
  return new HttpError(500, 'internal', 'the Hub failed to handle this request; see its log for the correlation id');
}
