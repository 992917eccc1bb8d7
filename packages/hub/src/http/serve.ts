import type { Result } from '@fleetplane/core';
import { hasRole } from '@fleetplane/core';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { Actor, Command, Committed } from '../commands/pipeline.ts';
import { recordDenial } from './record-denial.ts';
import type { HubContext } from './context.ts';
import { fromDomain, HttpError } from './errors.ts';
import { claiming, idempotencyClaim, storedReply, storeReply, type StoredClaim } from './idempotency.ts';
import { bearerToken, type Principal } from './principal.ts';
import { bodyFault, textFault } from './input-guard.ts';
import { boundedIssues } from './bounded-issues.ts';
import { explainIssues } from './union-issues.ts';
import type { Call, Reply, RequestHeader, RouteDef } from './route.ts';

/** A request matched to a route, as the HTTP server read it; the same whichever server did (mount.ts, direct.ts). */
export interface RouteRequest {
  method: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body: unknown;
  correlationId: string;
  /** Aborted when the caller goes away before its answer (ends a long poll). */
  signal: AbortSignal;
}

const ANONYMOUS: Principal = { id: 'anonymous', role: 'viewer', nodeId: null };

/**
 * The caller of a route: anonymous on a public one, else its bearer token's principal (401 without one). A
 * static credential's answers at once; an issuer's token, once verified (oidc.ts).
 */
export async function principalFor(def: RouteDef, hub: HubContext, headers: IncomingHttpHeaders): Promise<Principal> {
  if (def.access === 'public') return ANONYMOUS;
  const token = bearerToken(headers.authorization);
  if (token === null) throw new HttpError(401, 'unauthenticated', 'a bearer token is required');
  const principal = await hub.authenticate(token);
  if (principal === null) throw new HttpError(401, 'unauthenticated', 'unknown token');
  return principal;
}

/** A concurrent request with the same Idempotency-Key committed first: answer with its reply. */
class Replay extends Error {}

/**
 * Serves one request of a route as `principal`: authorizes it (every refusal audited), validates its input,
 * runs the handler, and keeps or replays the answer of an Idempotency-Key. Throws an HttpError for the
 * error envelope.
 */
export async function serve(hub: HubContext, def: RouteDef, principal: Principal, request: RouteRequest): Promise<Reply> {
  const actor: Actor = {
    principal: principal.id,
    role: principal.role,
    source: principal.role === 'agent' ? 'agent' : 'api',
    correlationId: request.correlationId,
  };
  // Every refusal, by role or by a command's policy (the approval gate), is audited (SPEC J1).
  const recordRefusal = async (code: string) => {
    await hub.pipeline.run(actor, recordDenial(principal.id, principal.role, request.method, def.path, code));
    hub.metrics.accessDenied.inc({ route: def.path });
  };
  const deny = async (code: string, message: string, status: 403 | 404 = 403, details: Record<string, unknown> = {}): Promise<never> => {
    await recordRefusal(code);
    throw new HttpError(status, code, message, details);
  };
  if (def.access === 'agent' ? principal.role !== 'agent' : def.access !== 'public' && !hasRole(principal.role, def.access)) {
    // The role in details too: a client names it in its own words (the CLI: whose token to use).
    await deny('forbidden', `this action needs the ${def.access} role`, 403, { required_role: def.access });
  }
  storable(request.params, 'invalid_path', 'path parameter');
  storable(request.query, 'invalid_query', 'query parameter');
  const params = parse(def.params, request.params, 'invalid_request', 'path');
  refuseUnknownQuery(def.query, request.query);
  const query = parse(def.query, withoutEmpty(request.query), 'invalid_request', 'query');
  const fault = bodyFault(request.body);
  if (fault) throw new HttpError(400, def.invalidCode ?? 'invalid_request', `invalid body${fault.path ? ` at ${fault.path}` : ''}: ${fault.message}`, { issues: [fault] });
  const body = parse(def.body, request.body, def.invalidCode ?? 'invalid_request', 'body');
  const key = def.idempotent ? request.headers['idempotency-key'] : undefined;
  const claim =
    typeof key === 'string' ? idempotencyClaim(key, principal.id, request.method, resourcePath(def.path, request.params), request.body) : null;
  /**
   * The answer to this request. With a key whose command committed but whose answer was never stored, the
   * route runs again on that command's result instead of the command: the answer is rebuilt, never the write.
   */
  const answer = async (prior: StoredClaim): Promise<Reply> => {
    const call: Call<unknown, unknown, unknown> = {
      params,
      query,
      body,
      principal,
      correlationId: request.correlationId,
      headers: declaredHeaders(def, request.headers),
      signal: request.signal,
      hub,
      async run<S, R>(command: Command<S, R>): Promise<Committed<R>> {
        if (prior.kind === 'unanswered') return { result: prior.result as R, events: [] };
        const outcome: Result<Committed<R>> = claim ? await hub.pipeline.run(actor, claiming(claim, command)) : await hub.pipeline.run(actor, command);
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
  return stored.kind === 'answered' ? stored.reply : answer(stored);
}

/** The request headers the route declares, and only those: a handler cannot come to read one its contract leaves out. */
function declaredHeaders(def: RouteDef, headers: IncomingHttpHeaders): Call<unknown, unknown, unknown>['headers'] {
  const declared = (def.requestHeaders ?? []).map((name) => name.toLowerCase() as Lowercase<RequestHeader>);
  return Object.fromEntries(declared.flatMap((name) => (typeof headers[name] === 'string' ? [[name, headers[name]]] : [])));
}

function parse<T>(schema: z.ZodType<T> | undefined, input: unknown, code: string, where: string): T {
  if (!schema) return undefined as T;
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const { issues, omitted } = boundedIssues(explainIssues(parsed.error.issues, input ?? {}));
  const more = omitted > 0 ? `\n… and ${omitted} more issues` : '';
  throw new HttpError(400, code, `invalid ${where}: ${z.prettifyError(new z.ZodError(issues))}${more}`, {
    issues: issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

/**
 * The request's resource, spelled one way: the route's path with its parameters filled in. Express matches
 * paths without regard to case or a trailing slash, so the raw path would let one key write one resource
 * several times (SPEC A4).
 */
function resourcePath(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** Path and query parameters hold only text PostgreSQL can store (input-guard.ts): a NUL is refused here, not by the database. */
function storable(parameters: Record<string, unknown>, code: string, kind: string): void {
  for (const [name, value] of Object.entries(parameters)) {
    for (const text of [name, value].flat()) {
      const fault = typeof text === 'string' ? textFault(text) : null;
      if (fault) throw new HttpError(400, code, `${kind} ${JSON.stringify(name)} ${fault}`, { parameter: name });
    }
  }
}

/**
 * A query parameter the route does not take is refused, not ignored: `GET /rollouts?selector=…` would otherwise
 * answer every rollout to a caller who believes it filtered them.
 */
function refuseUnknownQuery(schema: z.ZodType | undefined, query: Record<string, unknown>): void {
  const taken = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const unknown = Object.keys(query).filter((name) => !taken.includes(name));
  if (unknown.length === 0) return;
  const takes = taken.length ? `it takes ${taken.join(', ')}` : 'it takes none';
  throw new HttpError(400, 'invalid_query', `unknown query parameter ${unknown.join(', ')}: ${takes}`, { unknown, accepted: taken });
}

/** A query parameter sent empty (`?state=&node_id=`) is no filter, as a form or a script building URLs sends it. */
function withoutEmpty(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ''));
}
