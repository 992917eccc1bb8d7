import express, { type NextFunction, type Request, type Response } from 'express';
import { markProtoKey } from './proto-key.ts';

const LIMIT = 1024 * 1024;
/** What agents and the CLI send: JSON in UTF-8 (the default), with a length, not compressed. */
const PLAIN_JSON = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * JSON request bodies, as express.json({ limit: '1mb' }) parses them. The plain case is read here, in a few
 * lines: body-parser's content-type, charset, coding and stream handling cost the Hub's thread about a tenth
 * of a report under fleet load (docs/decisions.md, "Report ingestion at fleet scale"). Any other body (another
 * charset, a content coding, no Content-Length, over the limit) goes to express.json, which answers it as
 * before (and is searched for a "__proto__" key in full); the errors of both carry body-parser's types, which
 * the app maps to its codes.
 */
export function jsonBody() {
  // The byte search of markProtoKey sees a "__proto__" key only in UTF-8; the route looks for it in every
  // body read there (compressed ones too: the search sees their bytes before decoding, not after).
  const fallback = express.json({ limit: LIMIT, verify: (_req, res) => void ((res as Response).locals.protoKey = true) });
  return (req: Request, res: Response, next: NextFunction): void => {
    const length = Number(req.headers['content-length']);
    const coding = req.headers['content-encoding'];
    const plain =
      length > 0 && length <= LIMIT && PLAIN_JSON.test(req.headers['content-type'] ?? '') && (coding === undefined || coding.toLowerCase() === 'identity');
    if (!plain) return fallback(req, res, next);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', (e) => next(Object.assign(e, { type: 'request.aborted', status: 400 })));
    req.on('end', () => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      markProtoKey(req, res, raw);
      try {
        req.body = parse(raw.toString('utf8'));
      } catch (e) {
        return next(Object.assign(e as Error, { type: 'entity.parse.failed', status: 400 }));
      }
      next();
    });
  };
}

/** body-parser's strict JSON: a byte-order mark dropped, an object or an array, an empty body `{}`. */
function parse(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  const first = /[^ \t\n\r]/.exec(body)?.[0];
  if (first !== '{' && first !== '[') throw new SyntaxError(`a JSON body is an object or an array, not ${first === undefined ? 'blank' : `one starting with "${first}"`}`);
  return JSON.parse(body);
}
