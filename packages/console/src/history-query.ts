/**
 * What the History page shows, as its URL's query string: the filters, the order and the selected event, so
 * that Back and Forward step through them, a reload keeps them and a link shares them. The names are the
 * API's (`stream_id`, `type`, …); times are ISO 8601 in the URL, local in the form.
 */
export const FILTER_NAMES = ['stream_id', 'type', 'correlation_id', 'actor', 'since', 'until', 'reports'] as const;

export type Filters = Partial<Record<(typeof FILTER_NAMES)[number], string>>;

export interface HistoryView {
  filters: Filters;
  /** `oldest`: the log from its start; otherwise newest first, the default. */
  order: 'newest' | 'oldest';
  /** The selected event's cursor. */
  event: string | null;
}

export function readView(search: string): HistoryView {
  const q = new URLSearchParams(search);
  const filters: Filters = {};
  for (const name of FILTER_NAMES) {
    const v = q.get(name);
    if (v) filters[name] = v;
  }
  return { filters, order: q.get('order') === 'oldest' ? 'oldest' : 'newest', event: q.get('event') };
}

/** The page's URL for a view: only what differs from the defaults. */
export function viewUrl(view: HistoryView): string {
  const q = new URLSearchParams();
  for (const name of FILTER_NAMES) if (view.filters[name]) q.set(name, view.filters[name]);
  if (view.order === 'oldest') q.set('order', 'oldest');
  if (view.event) q.set('event', view.event);
  return `/history${q.size ? `?${q}` : ''}`;
}

/** Which reports a filter shows: the console always says, so a stream filter alone still leaves repeats out. */
export const reportsOf = (filters: Filters): string => filters.reports ?? 'changed';

/** GET /events for the filters, from a place in the log: after a cursor, or newest first before one. */
export function eventsQuery(filters: Filters, from: { after?: string | null; before?: string | null; newestFirst?: boolean }): string {
  const q = new URLSearchParams({ limit: '100', reports: reportsOf(filters) });
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (from.newestFirst) q.set('order', 'desc');
  if (from.after) q.set('after', from.after);
  if (from.before) q.set('before', from.before);
  return `/api/v1/events?${q}`;
}

/**
 * The one event a cursor names, whatever the filters: a cursor is `<tx_id>-<position>`, and in log order the
 * event right after `<tx_id>-<position - 1>` is that one, if it exists.
 */
export function oneEventQuery(cursor: string): string | null {
  const m = /^(\d+)-(\d+)$/.exec(cursor);
  if (!m) return null;
  return `/api/v1/events?limit=1&reports=all&after=${m[1]}-${Number(m[2]) - 1}`;
}

/** `2026-05-01T12:00` (a datetime-local input, local time) ⇄ ISO 8601 in UTC. */
export function localToIso(local: string): string {
  return local ? new Date(local).toISOString() : '';
}
export function isoToLocal(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
