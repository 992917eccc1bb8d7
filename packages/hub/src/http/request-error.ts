import { HttpError } from './errors.ts';

/** An error as Express's router, body-parser, zlib, node:http or the plain JSON reader raise it. */
interface RaisedError {
  type?: string;
  status?: number;
  expose?: boolean;
  code?: string;
  errno?: number;
  /** body-parser's limit, in bytes, of a body too large. */
  limit?: number;
}

/**
 * The client's part of reading a request, as the error envelope answers it: a path that is not valid
 * percent-encoded UTF-8, a body that is not JSON, too large, in another charset, not in the content coding
 * it declares, or cut off by the client. Null for an error that is not the client's.
 */
export function requestError(err: unknown): HttpError | null {
  if (typeof err !== 'object' || err === null) return null;
  const e = err as RaisedError;
  // Express's router decodes path parameters; a failure is a 400 URIError.
  if (err instanceof URIError && e.status === 400) return new HttpError(400, 'invalid_path', 'the path is not valid percent-encoded UTF-8');
  switch (e.type) {
    case 'entity.parse.failed':
      return new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
    case DUPLICATE_KEY:
      return new HttpError(400, 'invalid_json', (err as Error).message);
    case 'entity.too.large':
      return new HttpError(413, 'body_too_large', `the request body is larger than this route's limit of ${(e.limit ?? 0) / (1024 * 1024)} MiB`);
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new HttpError(415, 'unsupported_encoding', 'send the body as UTF-8 JSON');
    case 'request.aborted':
      return aborted();
    case 'request.size.invalid':
      return new HttpError(400, 'invalid_request', 'the request body is not as long as its Content-Length says');
  }
  if (e.status === undefined || e.status < 400 || e.status >= 500) return null;
  if (e.code === 'ECONNRESET') return aborted();
  // zlib's errors (gzip, deflate, br) carry an errno: the body is not in the coding its Content-Encoding names.
  if (typeof e.errno === 'number') {
    return new HttpError(400, 'invalid_content_encoding', 'the request body is not in the coding its Content-Encoding names');
  }
  return e.expose === true ? new HttpError(e.status, 'invalid_request', (err as Error).message) : null;
}

/** The type of a body that names a key twice in one object (json-body.ts). */
export const DUPLICATE_KEY = 'entity.duplicate.key';

/** The code of a body the client stopped sending: its answer reaches no one, and it is no failure of the Hub. */
export const ABORTED = 'request_aborted';
const aborted = () => new HttpError(400, ABORTED, 'the client closed the connection before its request body was read');
