import type { OperatorRole, Result } from '@fleetplane/core';
import { hasRole } from '@fleetplane/core';
import { finished } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { Actor, Command, Committed } from '../commands/pipeline.ts';
import { recordDenial } from '../commands/record-denial.ts';
import type { HubContext } from './context.ts';
import { fromDomain, HttpError } from './errors.ts';
import { claiming, idempotencyClaim, storedReply, storeReply, type StoredClaim } from './idempotency.ts';
import { bearerToken, type Principal } from './principal.ts';
import { hasProtoKey } from './proto-key.ts';

/** Who may call a route: anyone, an operator role or above, or a node's agent. */
export type Access = 'public' | OperatorRole | 'agent';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Sent as text with this content type instead of JSON. */
  contentType?: string;
  /**
   * A streamed answer (server-sent events): after the status and headers, writes until `stop` aborts, when
   * the caller goes away or the Hub stops. Each write waits while the caller is slow to read.
   */
  stream?(write: (chunk: string) => Promise<void>, stop: AbortSignal): Promise<void>;
}

export interface Call<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  correlationId: string;
  /** Aborted when the caller goes away (ends a long poll). */
  signal: AbortSignal;
  /** Request headers, lower-cased names. */
  headers: Record<string, string | undefined>;
  hub: HubContext;
  /** Runs a command as this caller; a domain error becomes its HTTP error. */
  run<S, R>(command: Command<S, R>): Promise<Committed<R>>;
  /**
   * Records the refusal as an audit event, then answers 403 with `code`; or 404, where a 403 would tell the
   * caller that what it reached for exists (another node's attempt).
   */
  deny(code: string, message: string, status?: 403 | 404): Promise<never>;
}

/**
 * One route: its method, path, access, zod schemas for input and output, and the handler. The same
 * definition validates requests, authorizes them and produces the OpenAPI document.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path syntax, e.g. `/api/v1/nodes/:id`. */
  path: string;
  summary: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Code of the 400 answer when the body does not validate (default `invalid_request`). */
  invalidCode?: string;
  /** Honours `Idempotency-Key`: the first answer is replayed for the same body, 409 for another. */
  idempotent?: boolean;
  responses: Record<number, z.ZodType | null>;
  handle(call: Call<P, Q, B>): Promise<Reply>;
}

export const route = <P, Q, B>(def: RouteDef<P, Q, B>): RouteDef => def as unknown as RouteDef;

/** A concurrent request with the same Idempotency-Key committed first: answer with its reply. */
class Replay extends Error {}

const ANONYMOUS: Principal = { id: 'anonymous', role: 'viewer', nodeId: null };

export function mount(router: Router, hub: HubContext, routes: readonly RouteDef[]): void {
  for (const def of routes) {
    router[def.method](def.path, async (req: Request, res: Response) => {
      const correlationId = res.locals.correlationId as string;
      const principal = def.access === 'public' ? ANONYMOUS : authenticate(req, hub);
      res.locals.principal = principal.id;
      const actor: Actor = {
        principal: principal.id,
        role: principal.role,
        source: principal.role === 'agent' ? 'agent' : 'api',
        correlationId,
      };
      // Every refusal, by role or by a command's policy (the approval gate), is audited (SPEC J1).
      const recordRefusal = async (code: string) => {
        await hub.pipeline.run(actor, recordDenial(principal.id, principal.role, req.method, def.path, code));
        hub.metrics.accessDenied.inc({ route: def.path });
      };
      const deny = async (code: string, message: string, status: 403 | 404 = 403): Promise<never> => {
        await recordRefusal(code);
        throw new HttpError(status, code, message);
      };
      if (def.access === 'agent' ? principal.role !== 'agent' : def.access !== 'public' && !hasRole(principal.role, def.access)) {
        await deny('forbidden', `this action needs the ${def.access} role`);
      }
      const params = parse(def.params, req.params, 'invalid_request', 'path');
      const query = parse(def.query, withoutEmpty(req.query), 'invalid_request', 'query');
      if (res.locals.protoKey && hasProtoKey(req.body)) throw new HttpError(400, def.invalidCode ?? 'invalid_request', 'invalid body: "__proto__" cannot be a key');
      const body = parse(def.body, req.body, def.invalidCode ?? 'invalid_request', 'body');
      const key = def.idempotent ? req.header('idempotency-key') : undefined;
      const claim = key === undefined ? null : idempotencyClaim(key, principal.id, req.method, resourcePath(def.path, req.params), req.body);
      const send = (reply: Reply) => {
        for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
        if (reply.stream) return streamed(res, hub, reply, closed.signal);
        if (reply.contentType) res.status(reply.status).type(reply.contentType).send(reply.body);
        else res.status(reply.status).json(reply.body);
      };
      const closed = new AbortController();
      // Only a caller gone before its answer aborts: aborting creates an exception, once per request otherwise.
      res.on('close', () => {
        if (!res.writableFinished) closed.abort();
      });
      /**
       * The answer to this request. With a key whose command committed but whose answer was never stored,
       * the route runs again on that command's result instead of the command: the answer is rebuilt, never
       * the write.
       */
      const answer = async (prior: StoredClaim): Promise<Reply> => {
        const call: Call<unknown, unknown, unknown> = {
          params,
          query,
          body,
          principal,
          correlationId,
          headers: req.headers as Record<string, string | undefined>,
          signal: closed.signal,
          hub,
          async run<S, R>(command: Command<S, R>): Promise<Committed<R>> {
            if (prior.kind === 'unanswered') return { result: prior.result as R, events: [] };
            const outcome: Result<Committed<R>> = claim
              ? await hub.pipeline.run(actor, claiming(claim, command))
              : await hub.pipeline.run(actor, command);
            if (!outcome.ok && outcome.error.code === 'idempotent_replay') throw new Replay();
            if (!outcome.ok) {
              const error = fromDomain(outcome.error);
              if (error.status === 403) await recordRefusal(error.code);
              throw error;
            }
            for (const e of outcome.value.events) hub.metrics.eventsAppended.inc({ type: e.type });
            return outcome.value;
          },
          deny,
        };
        try {
          const reply = await def.handle(call);
          if (!claim) return reply;
          const sent = await storeReply(hub.database.db, claim, reply);
          // A rebuilt answer answers the first request: the caller learns its retry wrote nothing.
          return prior.kind === 'unanswered' ? { ...sent, headers: { ...sent.headers, 'Idempotent-Replayed': 'true' } } : sent;
        } catch (e) {
          if (!(e instanceof Replay) || !claim) throw e;
          const stored = await storedReply(hub.database.db, claim, hub.clock);
          return stored.kind === 'answered' ? stored.reply : answer(stored);
        }
      };
      const stored: StoredClaim = claim ? await storedReply(hub.database.db, claim, hub.clock) : { kind: 'new' };
      await send(stored.kind === 'answered' ? stored.reply : await answer(stored));
    });
  }
}

/**
 * Sends a streamed reply's writes as they come, until the caller goes away or the Hub stops; then ends the
 * response cleanly. A failure after the headers can only end the response.
 */
async function streamed(res: Response, hub: HubContext, reply: Reply, callerGone: AbortSignal): Promise<void> {
  res.status(reply.status).type(reply.contentType ?? 'text/event-stream').flushHeaders();
  const stop = AbortSignal.any([callerGone, hub.streams.stopping]);
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
      hub.logger.error('streamed response failed', { correlation_id: res.locals.correlationId, error });
    })
    // The end reaches a reading client at once; one that stopped reading gets a second before its connection is cut.
    .then(() => finished(res.end(), { signal: AbortSignal.timeout(1000) }).catch(() => {}));
  hub.streams.open.add(done);
  await done;
  hub.streams.open.delete(done);
}

function authenticate(req: Request, hub: HubContext): Principal {
  const token = bearerToken(req.headers.authorization);
  if (token === null) throw new HttpError(401, 'unauthenticated', 'a bearer token is required');
  const principal = hub.authenticate(token);
  if (principal === null) throw new HttpError(401, 'unauthenticated', 'unknown token');
  return principal;
}

function parse<T>(schema: z.ZodType<T> | undefined, input: unknown, code: string, where: string): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw new HttpError(400, code, `invalid ${where}: ${z.prettifyError(parsed.error)}`, {
    issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

/**
 * The request's resource, spelled one way: the route's path with its parameters filled in. Express matches
 * paths without regard to case or a trailing slash, so the raw path would let one key write one resource
 * several times (SPEC A4).
 */
function resourcePath(pattern: string, params: Record<string, string | string[]>): string {
  return pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name] ?? '')));
}

/** A query parameter sent empty (`?state=&node_id=`) is no filter, as a form or a script building URLs sends it. */
function withoutEmpty(query: Request['query']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
}
