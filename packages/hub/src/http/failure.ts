import type { HubContext } from './context.ts';
import { HttpError, type ErrorEnvelope } from './errors.ts';

/** Where a request failed, for the answer and the log. */
export interface FailedRequest {
  correlationId: string;
  method: string;
  path: string;
}

/**
 * The answer to a request that failed: its error envelope, with the status and stable code of an HttpError
 * or of a body the JSON reader refused; anything else is a 500, logged with the correlation id.
 */
export function failure(hub: HubContext, err: unknown, at: FailedRequest): { status: number; body: ErrorEnvelope } {
  const error = asHttpError(err);
  if (error.status >= 500) {
    hub.logger.error('request failed', { correlation_id: at.correlationId, method: at.method, path: at.path, error: err });
  }
  return { status: error.status, body: { code: error.code, message: error.message, correlation_id: at.correlationId, details: error.details } };
}

function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { type?: string; status?: number };
  if (e.type === 'entity.parse.failed') return new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  if (e.type === 'entity.too.large') return new HttpError(413, 'body_too_large', 'the request body is larger than 1 MB');
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
    return new HttpError(415, 'unsupported_encoding', 'send the body as UTF-8 JSON');
  }
  return new HttpError(500, 'internal', 'the Hub failed to handle this request; see its log for the correlation id');
}
