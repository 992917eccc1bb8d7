import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorEnvelope } from './errors.ts';
import { correlationIdOf } from './correlation.ts';

/**
 * A request Node's HTTP parser refuses before any route sees it (a malformed request line or header, headers
 * over the size limit) is answered with the error envelope too, not Node's bare status line: clients parse
 * one error format. The connection is closed after it, as Node would.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer: the client went away, or an answer is already on its way.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const correlationId = correlationIdOf(undefined);
  const envelope: ErrorEnvelope = {
    code: tooLarge ? 'headers_too_large' : 'malformed_request',
    message: tooLarge ? 'the request headers are larger than the Hub accepts (16 KB)' : 'the request is not well-formed HTTP',
    correlation_id: correlationId,
    details: {},
  };
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
