import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { ErrorEnvelope } from '../http/errors.ts';
import { handshakeFailed } from '../tls.ts';
import { CliError, EXIT } from './exit.ts';

/**
 * A refusal or failure the Hub answered: its status and error envelope. 4xx exits 3, 5xx exits 4. (Also the
 * refusal the Hub would answer, when the CLI finds the miss itself among what the Hub listed.)
 */
export class HubError extends CliError {
  readonly status: number;
  readonly envelope: Partial<ErrorEnvelope>;
  constructor(status: number, envelope: Partial<ErrorEnvelope>) {
    super(status >= 500 ? EXIT.unreachable : EXIT.refused, `${envelope.code ?? `http_${status}`}: ${envelope.message ?? 'no message'}`);
    this.status = status;
    this.envelope = envelope;
  }
}

/** The HubError of a response that is not 2xx; a body that is not an envelope becomes its message. */
export async function hubError(res: Response): Promise<HubError> {
  const text = await res.text();
  try {
    return new HubError(res.status, JSON.parse(text) as Partial<ErrorEnvelope>);
  } catch {
    return new HubError(res.status, { message: text.slice(0, 200) || res.statusText });
  }
}

/**
 * The Hub could not be reached at all (refused, reset, name not resolved, timed out): no answer came, so
 * trying again later may work, as `events tail` does. A TLS handshake that failed is not one: it fails again.
 */
export class HubUnreachable extends CliError {
  constructor(message: string) {
    super(EXIT.unreachable, message);
  }
}

/** A Hub out of reach, or answering that it cannot serve for now (a proxy before it, or a Hub starting): worth waiting out. */
export const unavailable = (e: unknown): boolean => e instanceof HubUnreachable || (e instanceof HubError && [502, 503, 504].includes(e.status));

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface HubResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** How many times a request turned away for the Hub's load is sent in all, and the share of its wait added at random. */
export const OVERLOADED_TRIES = 5;
const OVERLOADED_JITTER = 0.5;

/** The wait a 429 asks for in its Retry-After (seconds), or null for any other answer, or a 429 without one. */
function overloadedWaitMs(res: Response): number | null {
  const after = res.headers.get('retry-after');
  if (res.status !== 429 || after === null || !/^\d+$/.test(after)) return null;
  return Number(after) * 1000;
}

/** How the CLI's requests reach the Hub: through `dispatcher` (a proxy, a CA), and whether it trusts a CA given by --ca. */
export interface HubConnections {
  dispatcher: Dispatcher;
  caGiven: boolean;
}

/** The Hub's REST API at `url`, as the holder of `token`, through `connections` when given. */
export class HubClient {
  readonly url: string;
  readonly #token: string | undefined;
  readonly #connections: HubConnections | undefined;
  constructor(url: string, token: string | undefined, connections?: HubConnections) {
    this.url = url.replace(/\/+$/, '');
    this.#token = token;
    this.#connections = connections;
  }

  /**
   * The raw response of any status; only a Hub that cannot be reached is an error (exit 4). A request the Hub
   * turned away for its load (429 with Retry-After: admission control) ran nothing, so it is sent again after
   * the wait the Hub asked for, with jitter, up to OVERLOADED_TRIES times, as kubectl does.
   */
  async fetch(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    for (let tries = 1; ; tries++) {
      const res = await this.#send(method, path, options);
      const wait = overloadedWaitMs(res);
      if (wait === null || tries >= OVERLOADED_TRIES || options.signal?.aborted) return res;
      await res.body?.cancel();
      await sleep(wait * (1 + OVERLOADED_JITTER * Math.random()), undefined, options.signal ? { signal: options.signal } : {});
    }
  }

  async #send(method: string, path: string, options: RequestOptions): Promise<Response> {
    const query = new URLSearchParams(Object.entries(options.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
    const target = `${this.url}/api/v1${path}${query.size ? `?${query}` : ''}`;
    try {
      return await fetch(target, {
        method,
        headers: {
          ...(this.#token ? { authorization: `Bearer ${this.#token}` } : {}),
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(this.#connections ? { dispatcher: this.#connections.dispatcher } : {}),
      });
    } catch (e) {
      if ((e as Error).name === 'AbortError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      // Plain HTTP where TLS was expected answers bytes that are no TLS record: no certificate was ever seen.
      if (cause?.code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
        throw new CliError(EXIT.unreachable, `cannot reach the Hub at ${this.url}: it did not answer TLS (${cause.code}); is it serving plain HTTP? then use http://`);
      }
      if (handshakeFailed(cause?.code)) {
        const hint = this.#connections?.caGiven ? 'is it signed by the CA in --ca / FLEETPLANE_CA?' : "give the CA that signed it with --ca or FLEETPLANE_CA";
        throw new CliError(EXIT.unreachable, `cannot reach the Hub at ${this.url}: its TLS certificate is not trusted (${cause!.code}: ${cause!.message}); ${hint}`);
      }
      throw new HubUnreachable(`cannot reach the Hub at ${this.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
    }
  }

  /** A JSON answer; any status other than 2xx is a HubError carrying the Hub's envelope. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<HubResponse<T>> {
    const res = await this.fetch(method, path, options);
    if (!res.ok) throw await hubError(res);
    const text = await res.text();
    return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T, headers: res.headers };
  }

  /** Every item of a list, page after page (`{items, next_cursor}`, at most 100 a page). */
  async list<T>(path: string, query: Record<string, string | undefined> = {}): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request<{ items: T[]; next_cursor: string | null }>('GET', path, { query: { ...query, cursor } });
      items.push(...page.body.items);
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor !== undefined);
    return items;
  }
}
