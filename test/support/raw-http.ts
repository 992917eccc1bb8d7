import { request, type IncomingHttpHeaders } from 'node:http';

/** A request written as given: the path byte for byte (no URL normalization), any headers, any body bytes. */
export interface RawRequest {
  method: string;
  /** Sent as is: percent-encoding, `%`, NUL escapes and all. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Sends the body chunked (no Content-Length), in two pieces. */
  chunked?: boolean;
  /** Declares the whole body's length, sends only this many bytes of it, then drops the connection. */
  abortAfterBytes?: number;
  /**
   * A route that holds its answer (a long poll, an event stream): after this many milliseconds without an
   * answer, or as soon as a stream's headers arrive, the request is dropped and answered as `held`.
   */
  holdMs?: number;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: any;
  /** The route held the request open (see `holdMs`); status is the stream's, or 0 for a long poll. */
  held: boolean;
}

/** Sends one raw request to `base` (http://host:port) and reads its answer. */
export function rawRequest(base: string, r: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const headers: Record<string, string> = { ...r.headers };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    // Node sends a GET's body chunked only when told to.
    if (r.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (answer: RawAnswer) => {
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const req = request({ host: url.hostname, port: url.port, method: r.method, path: r.path, headers, agent: false }, (res) => {
      if (r.holdMs !== undefined && String(res.headers['content-type']).startsWith('text/event-stream')) {
        settle({ status: res.statusCode!, headers: res.headers, text: '', json: undefined, held: true });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        settle({ status: res.statusCode!, headers: res.headers, text, json, held: false });
      });
      res.on('error', (e) => settled || reject(e));
    });
    const timer =
      r.holdMs === undefined
        ? undefined
        : setTimeout(() => {
            settle({ status: 0, headers: {}, text: '', json: undefined, held: true });
            req.destroy();
          }, r.holdMs);
    const dropped: RawAnswer = { status: 0, headers: {}, text: '', json: undefined, held: false };
    // A connection the caller drops gets no answer: the caller learns only that the request was sent.
    req.on('error', (e) => settled || (r.abortAfterBytes !== undefined ? settle(dropped) : reject(e)));
    req.on('close', () => settled || r.abortAfterBytes === undefined || settle(dropped));
    if (body === undefined) {
      req.end();
    } else if (r.abortAfterBytes !== undefined) {
      req.write(body.subarray(0, r.abortAfterBytes), () => setTimeout(() => req.destroy(), 20));
    } else if (r.chunked) {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      req.end(body.subarray(half));
    } else {
      req.end(body);
    }
  });
}
