import { nextStep } from './next-step.ts';

/** An error answered by the Hub, in its envelope: `{code, message, correlation_id, details}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly correlationId: string | null;
  constructor(status: number, code: string, message: string, correlationId: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.correlationId = correlationId;
  }
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Calls the Hub's REST API as the bearer of `token`; answers the parsed body or throws an ApiError. */
export async function api<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const e = (parsed ?? {}) as { code?: string; message?: string; correlation_id?: string };
    throw new ApiError(res.status, e.code ?? 'http_error', e.message ?? `the Hub answered ${res.status}`, e.correlation_id ?? null);
  }
  return parsed as T;
}

/** Every item of a paged list, following `next_cursor` (lists answer at most 100 per page). */
export async function listAll<T>(token: string, path: string): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const page: Page<T> = await api<Page<T>>(token, 'GET', `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return items;
}

/** What to show for a failed call: the Hub's message, what to do in the console, its code and correlation id for the log. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    const next = nextStep(e.code);
    return `${e.message}${next ? `. ${next}` : ''} (${e.code}${e.correlationId ? `, correlation id ${e.correlationId}` : ''})`;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * A list page that never loses what still needs someone: every item of the `live` filters (each followed to
 * its last page), and the `recent` newest items of any state; newest first, as the Hub lists them. A paused
 * rollout or a pending approval request older than the newest page still shows.
 */
export async function liveAndRecent<T extends { created_at: string }>(token: string, path: string, live: readonly string[], recent: number, id: (item: T) => string): Promise<T[]> {
  const [newest, ...open] = await Promise.all([api<Page<T>>(token, 'GET', `${path}?limit=${recent}`), ...live.map((filter) => listAll<T>(token, `${path}?${filter}`))]);
  const byId = new Map([...newest!.items, ...open.flat()].map((item) => [id(item), item]));
  return [...byId.values()].sort((a, b) => (a.created_at === b.created_at ? (id(a) < id(b) ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
}
