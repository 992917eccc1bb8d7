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
