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
  deny(code: string, message: string, status?: 403 | 404, details?: Record<string, unknown>): Promise<never>;
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
