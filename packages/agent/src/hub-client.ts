import { randomUUID } from 'node:crypto';
import type { ObservedStream, RemovedStream } from '@fleetplane/core';
import { EnvHttpProxyAgent } from 'undici';
import type { ExecutionResult, AttemptCommand } from './executors/executor.ts';
import { storableText } from './storable-text.ts';

/** The Hub answered with an error. `correlationId` finds the request in the Hub's log. */
export class HubError extends Error {
  readonly status: number;
  readonly code: string;
  readonly correlationId: string;
  /** How long the Hub asked the agent to wait before asking again (`Retry-After` in seconds), or null. */
  readonly retryAfterMs: number | null;
  constructor(status: number, code: string, message: string, correlationId: string, retryAfterMs: number | null = null) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.correlationId = correlationId;
    this.retryAfterMs = retryAfterMs;
  }
}

/** `Retry-After` as whole seconds (the form the Hub sends), in milliseconds; null without one. */
function retryAfterMs(res: Response): number | null {
  const header = res.headers.get('retry-after');
  return header !== null && /^\d+$/.test(header) ? Number(header) * 1000 : null;
}

/**
 * No answer from the Hub (refused, reset, timed out, a name that does not resolve, a certificate the agent
 * does not trust): the reason is the cause.
 */
export class HubUnreachable extends Error {
  readonly correlationId: string;
  constructor(method: string, path: string, correlationId: string, cause: unknown) {
    super(`${method} ${path}: no answer from the Hub`, { cause });
    this.correlationId = correlationId;
  }
}

/**
 * An answer that is not the Hub's (not JSON, JSON without what the route answers, cut short): a proxy, a captive
 * portal or another server in between, or a connection cut mid-answer. Never taken for an answer of the Hub's,
 * so an empty or foreign body neither refuses a report nor stands for a poll's attempts.
 */
export class HubForeignAnswer extends Error {
  readonly status: number;
  readonly correlationId: string;
  constructor(method: string, path: string, res: Response, why: string, correlationId: string, cause?: unknown) {
    super(`${method} ${path}: the answer (${res.status} ${res.headers.get('content-type') ?? 'no content-type'}) is not the Hub's: ${why}`, { cause });
    this.status = res.status;
    this.correlationId = correlationId;
  }
}

/**
 * The Hub refused a report as larger than it takes (413): the node stays without a report, shown stale and
 * then offline, for as long as its report is that large. Says how large it was, and of how many streams.
 */
export class ReportTooLarge extends Error {
  readonly streams: number;
  readonly bytes: number;
  constructor(streams: number, bytes: number, cause: HubError) {
    super(`the Hub refuses this node's report of ${streams} streams as too large (${bytes} bytes; ${cause.message})`, { cause });
    this.streams = streams;
    this.bytes = bytes;
  }
}

/** Enough of a foreign body for the log line to say what answered (a portal's title, a proxy's JSON). */
const excerpt = (text: string) => text.slice(0, 200);

/** What a route's answer must hold to be the Hub's: a check of its shape, and what is missing when it fails. */
type Shape = { holds: (answer: Record<string, unknown>) => boolean; missing: string };
const anyObject: Shape = { holds: () => true, missing: 'not an object' };
const reportAnswer: Shape = { holds: (a) => typeof a['accepted'] === 'boolean', missing: 'no "accepted"' };
const pollAnswer: Shape = {
  holds: (a) => Array.isArray(a['attempts']) && (a['removed_streams'] === undefined || Array.isArray(a['removed_streams'])),
  missing: 'no "attempts"',
};

/**
 * The agent's side of the agent protocol, over HTTP or HTTPS with the node's bearer token; over HTTPS the Hub's
 * certificate is verified against `ca` (PEM) when one is given, else the system's CAs. Every call has a time
 * limit (`timeoutMs`; a long poll, its wait on top): a Hub that never answers one request must not stall the
 * reports queued behind it, or the agent's shutdown.
 *
 * Calls go through the proxy the environment names, as curl, the kubelet and Nomad's client read it: `HTTPS_PROXY`
 * for an https:// Hub, `HTTP_PROXY` for http:// (lower-case names first), unless `NO_PROXY` lists the Hub's host;
 * through a proxy the connection is a CONNECT tunnel, and the Hub's certificate is verified at its end as without.
 */
export class HubClient {
  readonly #base: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #connections: EnvHttpProxyAgent;
  constructor(base: string, token: string, timeoutMs = 10_000, ca: string | null = null) {
    this.#base = base.replace(/\/$/, '');
    this.#token = token;
    this.#timeoutMs = timeoutMs;
    this.#connections = new EnvHttpProxyAgent(ca === null ? {} : { connect: { ca }, requestTls: { ca } });
  }

  async #call<T>(method: string, path: string, shape: Shape, body?: unknown, signal?: AbortSignal, waitMs = 0): Promise<T> {
    const limit = AbortSignal.timeout(this.#timeoutMs + waitMs);
    // Sent with every call, so a failure logged here and the Hub's line for the same request share an id.
    const correlationId = randomUUID();
    let res: Response;
    try {
      res = await fetch(this.#base + path, {
        method,
        headers: {
          authorization: `Bearer ${this.#token}`,
          'x-correlation-id': correlationId,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: signal ? AbortSignal.any([signal, limit]) : limit,
        dispatcher: this.#connections,
      });
    } catch (e) {
      throw new HubUnreachable(method, path.replace(/\?.*/, ''), correlationId, e);
    }
    const foreign = (why: string, cause?: unknown) => new HubForeignAnswer(method, path.replace(/\?.*/, ''), res, why, correlationId, cause);
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw foreign('cut short', e);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // An error status stands on its own (a proxy's 502 page): its status is what the agent acts on.
      if (res.status >= 400) throw new HubError(res.status, 'error', res.statusText, correlationId, retryAfterMs(res));
      throw foreign(`not JSON: ${excerpt(text)}`);
    }
    const answer = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
    if (res.status >= 400) {
      const { code, message } = answer ?? {};
      throw new HubError(res.status, typeof code === 'string' ? code : 'error', typeof message === 'string' ? message : res.statusText, correlationId, retryAfterMs(res));
    }
    if (answer === null) throw foreign(`not an object: ${excerpt(text)}`);
    if (!shape.holds(answer)) throw foreign(`${shape.missing}: ${excerpt(text)}`);
    return answer as T;
  }

  register(registration: Record<string, unknown>) {
    return this.#call<Record<string, unknown>>('POST', '/api/v1/agent/register', anyObject, registration);
  }

  async report(report: { streams: ObservedStream[] } & Record<string, unknown>) {
    const body = { ...report, streams: report.streams.map((s) => ({ ...s, error: storableText(s.error) })) };
    try {
      return await this.#call<{ accepted: boolean }>('POST', '/api/v1/agent/reports', reportAnswer, body);
    } catch (e) {
      if (e instanceof HubError && e.status === 413) throw new ReportTooLarge(body.streams.length, Buffer.byteLength(JSON.stringify(body)), e);
      throw e;
    }
  }

  /** The long poll: the node's attempts, and the streams it reports that the Hub removed (none from a Hub that does not say). */
  async attempts(waitSeconds: number, signal?: AbortSignal): Promise<{ attempts: AttemptCommand[]; removedStreams: RemovedStream[] }> {
    const answer = await this.#call<{ attempts: AttemptCommand[]; removed_streams?: RemovedStream[] }>('GET', `/api/v1/agent/attempts?wait=${waitSeconds}`, pollAnswer, undefined, signal, waitSeconds * 1000);
    return { attempts: answer.attempts, removedStreams: answer.removed_streams ?? [] };
  }

  result(attemptId: string, generation: number, result: ExecutionResult) {
    return this.#call('POST', `/api/v1/agent/attempts/${encodeURIComponent(attemptId)}/result`, anyObject, { ...result, message: storableText(result.message), generation });
  }
}
