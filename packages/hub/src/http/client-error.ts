import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorEnvelope } from './errors.ts';
import { correlationIdOf } from './correlation.ts';
import { MAX_HEADER_BYTES } from './server-limits.ts';

/** Node's code for a request whose headers or body did not arrive within its timeout (http/server-limits.ts). */
export const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

const ANSWERS: Record<string, [status: number, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', `the request headers are larger than the Hub accepts (${MAX_HEADER_BYTES / 1024} KB)`],
  [REQUEST_TIMEOUT]: [408, 'request_timeout', 'the request did not arrive in time: send its headers and body without pausing'],
};
const MALFORMED: [number, string, string] = [400, 'malformed_request', 'the request is not well-formed HTTP'];

/**
 * A request Node's HTTP parser refuses before any route sees it (a malformed request line or header, headers
 * over the size limit), or cuts because it did not arrive in time, is answered with the error envelope too,
 * not Node's bare status line: clients parse one error format. The connection is closed after it, as Node would.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer: the client went away, or an answer is already on its way.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const correlationId = correlationIdOf(undefined);
  const envelope: ErrorEnvelope = { code, message, correlation_id: correlationId, details: {} };
  const body = JSON.stringify(envelope);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Correlation-Id: ${correlationId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
