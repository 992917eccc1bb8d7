import { finished } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { logFailure } from '../logger.ts';
import type { HubContext } from './context.ts';
import { SEND_STALL_MS, sendJson } from './json-answer.ts';
import type { Reply, RouteDef } from './route.ts';
import type { Principal } from './principal.ts';
import { principalFor, serve } from './serve.ts';

/** Serves route definitions on an Express router; a failure goes to the app's error handler. */
export function mount(router: Router, hub: HubContext, routes: readonly RouteDef[]): void {
  for (const def of routes) {
    router[def.method](def.path, async (req: Request, res: Response) => {
      const principal = await principalFor(def, hub, req.headers);
      res.locals.principal = principal.id;
      const closed = new AbortController();
      // Only a caller gone before its answer aborts: aborting creates an exception, once per request otherwise.
      res.on('close', () => {
        if (!res.writableFinished) closed.abort();
      });
      // Its place is given back once its answer is written: writing a large answer is work too.
      const leave = await hub.admission.enter(def, closed.signal);
      try {
        const reply = await serve(hub, def, principal, {
          method: req.method,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, unknown>,
          headers: req.headers,
          body: req.body,
          correlationId: res.locals.correlationId as string,
          signal: closed.signal,
        });
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v!);
        if (reply.stream) await streamed(res, hub, def, reply, closed.signal, async () => !samePrincipal(await principalOf(def, hub, req.headers), principal));
        else if (reply.body === null) res.status(reply.status).end();
        else if (def.contentType) res.status(reply.status).type(def.contentType).send(reply.body);
        else if ((await sendJson(res, reply.status, reply.body)) === 'stalled') {
          // Its answer reaches no one, so no request line is logged for it: this line is its trace.
          hub.logger.info('answer cut: the caller stopped reading', { correlation_id: res.locals.correlationId, method: req.method, path: req.path, after_ms: SEND_STALL_MS });
        }
      } finally {
        leave();
      }
    });
  }
}

/** The caller's principal as the running credentials know it now, or null (revoked by a reload). */
async function principalOf(def: RouteDef, hub: HubContext, headers: Request['headers']): Promise<Principal | null> {
  try {
    return await principalFor(def, hub, headers);
  } catch {
    return null;
  }
}

const samePrincipal = (a: Principal | null, b: Principal) => a !== null && a.id === b.id && a.role === b.role && a.nodeId === b.nodeId;

/**
 * Sends a streamed reply's writes as they come, until the caller goes away, the Hub stops or a reload revokes
 * the caller's credential (`revoked`, asked after every reload); then ends the response cleanly. A failure
 * after the headers can only end the response.
 */
async function streamed(res: Response, hub: HubContext, def: RouteDef, reply: Reply, callerGone: AbortSignal, revoked: () => Promise<boolean>): Promise<void> {
  res.status(reply.status).type(def.contentType ?? 'text/event-stream').flushHeaders();
  const reloaded = new AbortController();
  const recheck = () =>
    void revoked().then((gone) => {
      if (gone) reloaded.abort();
    });
  hub.streams.reloaded.add(recheck);
  const stop = AbortSignal.any([callerGone, hub.streams.stopping, reloaded.signal]);
  // A reader that stops reading holds a write until it drains or the stream stops: never the Hub's stop.
  const write = (chunk: string) =>
    new Promise<void>((resolve) => {
      if (res.write(chunk) || stop.aborted) return resolve();
      const go = () => {
        res.off('drain', go);
        stop.removeEventListener('abort', go);
        resolve();
      };
      res.on('drain', go);
      stop.addEventListener('abort', go);
    });
  const done = reply.stream!(write, stop)
    .catch((error: unknown) => {
      logFailure(hub.logger, 'streamed response failed', error, { correlation_id: res.locals.correlationId });
    })
    // The end reaches a reading client at once; one that stopped reading gets a second before its connection is cut.
    .then(() => finished(res.end(), { signal: AbortSignal.timeout(1000) }).catch(() => {}));
  hub.streams.open.add(done);
  await done;
  hub.streams.open.delete(done);
  hub.streams.reloaded.delete(recheck);
}
