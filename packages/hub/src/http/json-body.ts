import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { duplicateKey } from './duplicate-key.ts';
import { HttpError } from './errors.ts';
import { DUPLICATE_KEY } from './request-error.ts';

/** The largest body a route takes unless it names its own (`RouteDef.bodyLimit`). */
export const BODY_LIMIT = 1024 * 1024;
/** What agents and the CLI send: JSON in UTF-8 (the default), with a length, not compressed. */
const PLAIN_JSON = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * Whether the body is plain JSON, read by `readPlainJson`: UTF-8, a Content-Length within `limit`, no
 * content coding. body-parser's content-type, charset, coding and stream handling were a measurable part of
 * the Hub's thread per report under fleet load (docs/decisions.md, "Report ingestion at fleet scale").
 */
export function isPlainJson(headers: IncomingHttpHeaders, limit: number): boolean {
  const length = Number(headers['content-length']);
  const coding = headers['content-encoding'];
  return length > 0 && length <= limit && PLAIN_JSON.test(headers['content-type'] ?? '') && (coding === undefined || coding.toLowerCase() === 'identity');
}

/** Reads a plain JSON body (`isPlainJson`) as express.json would; its errors carry body-parser's types. */
export function readPlainJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', (e) => reject(aborted(e)));
    req.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      try {
        notUtf8(raw, 'utf-8');
        resolve(parse(raw.toString('utf8')));
      } catch (e) {
        reject(Object.assign(e as Error, { type: (e as { type?: string }).type ?? 'entity.parse.failed', status: 400 }));
      }
    });
  });
}

/**
 * JSON request bodies for Express routes, as express.json({ limit }) parses them: the plain ones read by
 * `readPlainJson`, any other JSON (another charset, a content coding, no Content-Length) by express.json,
 * a chunked one cut off once more than the limit was sent (`withinLimitSent`); a Content-Length over the
 * limit is refused unread. A body of any other media type, or of none, is refused with 415
 * `unsupported_media_type` once read (`discardBody`), on every route. A body already read (by the parser of
 * a route with a limit of its own, mounted ahead of this one) is left as it is.
 */
export function jsonBody(limit = BODY_LIMIT) {
  const fallback = withinLimitSent(
    express.json({
      limit,
      verify: (_req, _res, raw, charset) => {
        notUtf8(raw, charset);
        // UTF-32 and UTF-7, which iconv reads and TextDecoder does not, are left to JSON.parse's last-wins.
        if (TEXT_DECODER_CHARSET.test(charset)) namesNoKeyTwice(new TextDecoder(charset).decode(raw));
      },
    }),
    limit,
  );
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.body !== undefined) return next();
    // Refused before a byte of it is read: the client may be announcing more than it will ever send, and
    // reading it to its end (as body-parser does) would hold the connection as long as the client likes.
    if (Number(req.headers['content-length']) > limit) return next(tooLarge(res, limit));
    if (isPlainJson(req.headers, limit)) {
      readPlainJson(req).then((body) => {
        req.body = body;
        next();
      }, next);
      return;
    }
    if (hasBody(req.headers) && !req.is('application/json')) {
      discardBody(req, limit).then(() => next(new HttpError(415, 'unsupported_media_type', 'send the body as application/json')), next);
      return;
    }
    fallback(req, res, next);
  };
}

/**
 * `parser` on a body whose bytes sent are bounded too: a chunked body's, once past `limit`, refused at once
 * and its connection closed. body-parser refuses a body over its limit only once the body has ended, having
 * read the rest, and a chunked body ends when its client likes. The count runs beside the parser's own
 * reading, attached in the same turn (body-parser starts reading within its call), and stops when the parser
 * answers; a compressed body's bytes count as sent, before they are inflated.
 */
function withinLimitSent(parser: (req: Request, res: Response, next: NextFunction) => void, limit: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    let refused = false;
    let parserDone = false;
    let sent = 0;
    const count = (chunk: Buffer) => {
      sent += chunk.length;
      if (sent <= limit) return;
      req.off('data', count);
      refused = true;
      // Whatever reads it (the parser, its inflating stream) reads no more: the connection closes after the answer.
      req.unpipe();
      req.pause();
      next(tooLarge(res, limit));
    };
    parser(req, res, (error?: unknown) => {
      parserDone = true;
      req.off('data', count);
      if (!refused) next(error);
    });
    if (!parserDone && req.headers['content-length'] === undefined) req.on('data', count);
  };
}

/** The refusal of a body over `limit`, its connection closed after the answer: what is left of it is never read. */
function tooLarge(res: Response, limit: number): Error {
  res.setHeader('Connection', 'close');
  return Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, limit });
}

/**
 * Reads a body the Hub will not use, up to the limit, and drops it. An answer sent while the client is still
 * sending makes the server close a connection with unread bytes, which the client's TCP stack may see as a
 * reset before it reads the answer; read first, the refusal reaches it. Past the limit it stops reading: a
 * client sending that much to the wrong door may get a reset, as for a JSON body over the limit.
 */
function discardBody(req: IncomingMessage, limit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let read = 0;
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read <= limit) return;
      req.off('data', onData).off('end', resolve).pause();
      resolve();
    };
    req.on('data', onData);
    req.on('end', resolve);
    req.on('error', (e) => reject(aborted(e)));
  });
}

/** A request with a body: one of some length, or one sent chunked. An empty body is none (a client's bare POST). */
const hasBody = (headers: IncomingHttpHeaders): boolean => headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;

/**
 * Throws, as a body that is not JSON, when `raw` is declared UTF-8 but is not: decoding would replace each bad
 * byte with U+FFFD, and the Hub would store text the client never sent.
 */
function notUtf8(raw: Buffer, charset: string): void {
  if (/^utf-?8$/i.test(charset) && !isUtf8(raw)) throw Object.assign(new SyntaxError('the request body is not valid UTF-8'), { type: 'entity.parse.failed', status: 400 });
}

const TEXT_DECODER_CHARSET = /^utf-?(8|16(le|be)?)$/i;

/** Throws when `text` names a key twice in one object (duplicate-key.ts), as a refusal request-error.ts answers. */
function namesNoKeyTwice(text: string): void {
  const key = duplicateKey(text);
  if (key !== null) throw Object.assign(new Error(`the request body names the key ${JSON.stringify(key)} twice in one object`), { type: DUPLICATE_KEY, status: 400 });
}

/** A client that stopped sending its body, as body-parser types it (request-error.ts). */
const aborted = (e: Error) => Object.assign(e, { type: 'request.aborted', status: 400 });

/** body-parser's strict JSON: a byte-order mark dropped, an object or an array, an empty body `{}`. */
function parse(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  const first = /[^ \t\n\r]/.exec(body)?.[0];
  if (first !== '{' && first !== '[') throw new SyntaxError(`a JSON body is an object or an array, not ${first === undefined ? 'blank' : `one starting with "${first}"`}`);
  const parsed: unknown = JSON.parse(body);
  namesNoKeyTwice(body);
  return parsed;
}
