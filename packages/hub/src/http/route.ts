import type { OperatorRole } from '@fleetplane/core';
import type { z } from 'zod';
import type { Command, Committed } from '../commands/pipeline.ts';
import type { HubContext } from './context.ts';
import type { Principal } from './principal.ts';

/** Who may call a route: anyone, an operator role or above, or a node's agent. */
export type Access = 'public' | OperatorRole | 'agent';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Partial<Record<ResponseHeader, string>>;
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
  /** The request headers the route declares (`requestHeaders`), by lower-cased name: it reads no other. */
  headers: Partial<Record<Lowercase<RequestHeader>, string>>;
  hub: HubContext;
  /** Runs a command as this caller; a domain error becomes its HTTP error. */
  run<S, R>(command: Command<S, R>): Promise<Committed<R>>;
  /**
   * Records the refusal as an audit event, then answers 403 with `code`; or 404, where a 403 would tell the
   * caller that what it reached for exists (another node's attempt).
   */
  deny(code: string, message: string, status?: 403 | 404, details?: Record<string, unknown>): Promise<never>;
}

/** Request headers a route may read, besides those every route takes (Authorization, X-Correlation-Id). */
export type RequestHeader = 'If-Match' | 'Last-Event-ID' | 'Prefer';

/**
 * Response headers a route may set on its answers, besides those set for it: X-Correlation-Id (every answer),
 * Location (every 201), Idempotent-Replayed (an idempotent route's replay) and Retry-After (503, and 429
 * `overloaded`: admission.ts).
 */
export type ResponseHeader = 'ETag' | 'Location' | 'Cache-Control' | 'X-Accel-Buffering' | 'Idempotent-Replayed' | 'Preference-Applied';

/**
 * One route: its method, path, access, zod schemas for input and output, the headers, errors and content type
 * it uses, and the handler. The same definition validates requests, authorizes them and produces the OpenAPI
 * document, which the tests hold every answer to.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path syntax, e.g. `/api/v1/nodes/:id`. */
  path: string;
  /** The OpenAPI operationId: a verb and a noun, unique in the API (`listNodes`). */
  operationId: string;
  /** The part of the API it belongs to, as the OpenAPI document groups operations. */
  tag: Tag;
  summary: string;
  access: Access;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The largest body it takes, in bytes, when not the default `BODY_LIMIT` (json-body.ts); larger is 413 `body_too_large`. */
  bodyLimit?: number;
  /** Code of the 400 answer when the body does not validate (default `invalid_request`). */
  invalidCode?: string;
  /** Honours `Idempotency-Key`: the first answer is replayed for the same body, 409 for another. */
  idempotent?: boolean;
  /** Request headers the handler reads (`Call.headers` holds only these). */
  requestHeaders?: readonly RequestHeader[];
  /**
   * Headers of its successful answers, beyond those set for it (see ResponseHeader): of every one, or by status
   * where its answers differ (`{ 200: ['ETag'], 204: ['ETag', 'Preference-Applied'] }`).
   */
  responseHeaders?: readonly ResponseHeader[] | Partial<Record<number, readonly ResponseHeader[]>>;
  /** The codes of the errors it answers by status, beyond those every route may (openapi.ts, `commonErrors`). */
  errors?: Partial<Record<number, readonly string[]>>;
  /**
   * Holds its request open waiting for something to send (a long poll, an event stream), each bounded on its
   * own: not counted as work in flight by admission control (admission.ts).
   */
  held?: true;
  /** Its successful answers are sent as text of this type instead of JSON (their schema is then a string). */
  contentType?: 'text/event-stream' | 'text/plain; version=0.0.4';
  /** Its successful answers (and /readyz's 503) by status: their body's schema, or null for none. */
  responses: Record<number, z.ZodType | null>;
  handle(call: Call<P, Q, B>): Promise<Reply>;
}

/** The parts of the API, in the order the OpenAPI document lists them. */
export const TAGS = {
  ops: 'Liveness, readiness, metrics and this description; no token needed',
  agent: "A node's agent: registration, reports, attempts and their results",
  nodes: 'Nodes, their labels, maintenance and reconciliation mode',
  streams: 'Streams: desired state written by operators, observed state reported by nodes',
  intents: 'Intents, attempts and drift: how the Hub moves nodes to the desired state',
  configuration: 'Configuration versions, rollouts and approvals',
  events: 'The event log: read, filtered and followed live',
  identity: 'Who the caller is',
} as const;
export type Tag = keyof typeof TAGS;

/** The headers a route declares for its successful answers of `status`. */
export function successHeaders(def: Pick<RouteDef, 'responseHeaders'>, status: number): readonly ResponseHeader[] {
  const declared = def.responseHeaders;
  if (declared === undefined) return [];
  return isHeaderList(declared) ? declared : (declared[status] ?? []);
}

const isHeaderList = (declared: NonNullable<RouteDef['responseHeaders']>): declared is readonly ResponseHeader[] => Array.isArray(declared);

export const route = <P, Q, B>(def: RouteDef<P, Q, B>): RouteDef => def as unknown as RouteDef;
