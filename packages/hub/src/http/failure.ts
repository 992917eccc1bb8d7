import { isDatabaseUnavailable } from '../database/unavailable.ts';
import { logFailure } from '../logger.ts';
import type { HubContext } from './context.ts';
import { HttpError, type ErrorEnvelope } from './errors.ts';

/** Seconds a client waits before it retries a request answered 503 while the database was away. */
export const RETRY_AFTER_SECONDS = 2;

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
 * or of a body the JSON reader refused; 503 with Retry-After while the database is away; anything else is a
 * 500. Both are logged with the correlation id (logFailure).
 */
export function failure(hub: HubContext, err: unknown, at: FailedRequest): Failure {
  const error = asHttpError(err);
  if (error.status >= 500) logFailure(hub.logger, 'request failed', err, { correlation_id: at.correlationId, method: at.method, path: at.path });
  return {
    status: error.status,
    body: { code: error.code, message: error.message, correlation_id: at.correlationId, details: error.details },
    headers: error.status === 503 ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {},
  };
}

function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isDatabaseUnavailable(err)) return new HttpError(503, 'database_unavailable', 'the Hub cannot reach its database; retry later');
  const e = err as { type?: string; status?: number };
  if (e.type === 'entity.parse.failed') return new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  if (e.type === 'entity.too.large') return new HttpError(413, 'body_too_large', 'the request body is larger than 1 MB');
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
    return new HttpError(415, 'unsupported_encoding', 'send the body as UTF-8 JSON');
  }
  return new HttpError(500, 'internal', 'the Hub failed to handle this request; see its log for the correlation id');
}
