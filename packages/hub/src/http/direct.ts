import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { HubContext } from './context.ts';
import { correlationIdOf } from './correlation.ts';
import { failure } from './failure.ts';
import { bodyLimitFor } from './body-limit.ts';
import { isPlainJson, readPlainJson } from './json-body.ts';
import { observe } from './observe.ts';
import type { RouteDef } from './route.ts';
import { principalFor, serve } from './serve.ts';

/**
 * The fleet's routine writes, an agent's reports and registration, served by node:http ahead of Express:
 * Express's app, router and response helpers were a large part of the Hub's thread per report under fleet load
 * (docs/decisions.md, "Report ingestion at fleet scale"). Same route definitions, same `serve`; a request
 * this does not take exactly as written (another spelling of the path, a query, a body that is not plain
 * JSON) goes on to Express, which answers it the same way.
 */
export function direct(hub: HubContext, routes: readonly RouteDef[], next: RequestListener): RequestListener {
  const served = new Map(routes.filter((d) => d.access === 'agent' && d.method === 'post' && !d.path.includes(':')).map((d) => [d.path, d]));
  return (req, res) => {
    const def = req.method === 'POST' ? served.get(req.url!) : undefined;
    if (def === undefined) return next(req, res);
    // An agent's token is a static credential: a limit still to be verified is an issuer's, which Express serves.
    const limit = bodyLimitFor(def, hub, req.headers);
    if (typeof limit !== 'number' || !isPlainJson(req.headers, limit)) return next(req, res);
    void answer(hub, def, req, res);
  };
}

/** As Express would answer it (mount.ts, app.ts): correlation id, log line and metrics, JSON or the error envelope. */
async function answer(hub: HubContext, def: RouteDef, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = process.hrtime.bigint();
  const correlationId = correlationIdOf(req.headers['x-correlation-id']);
  let principal: string | undefined;
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    observe(hub, { method: 'POST', route: def.path, status: res.statusCode, seconds, correlationId, principal });
  });
  const closed = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) closed.abort();
  });
  let reply: { status: number; body: unknown; headers?: Record<string, string | undefined> };
  let leave = () => {};
  try {
    const body = await readPlainJson(req);
    const caller = await principalFor(def, hub, req.headers);
    principal = caller.id;
    leave = await hub.admission.enter(def, closed.signal);
    const request = { method: 'POST', params: {}, query: {}, headers: req.headers, body, correlationId, signal: closed.signal };
    const answered = await serve(hub, def, caller, request);
    if (answered.stream || def.contentType) throw new Error(`${def.path} answers JSON only when served directly`);
    reply = answered;
  } catch (err) {
    reply = failure(hub, err, { correlationId, method: 'POST', path: def.path });
  }
  const json = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
    'x-correlation-id': correlationId,
  });
  res.end(json);
  leave();
}
