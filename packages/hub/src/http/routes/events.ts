import { z } from 'zod';
import { follow, type Follower } from '../../event-store/follow.ts';
import { matchesFilter, REPORT_FILTERS, type LogFilter } from '../../event-store/filter.ts';
import { decodeCursor, encodeCursor, logEnd, READ_DATA_BYTES, readAll, type LogCursor } from '../../event-store/read-all.ts';
import { logFailure } from '../../logger.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { EventView, eventView } from '../views/event.ts';
import { listOf } from '../views/list.ts';

/** A log page may be larger than other lists: exporters read the whole history with it. */
const MAX_EVENTS_PAGE = 1000;
const HEARTBEAT_MS = 15_000;
/**
 * The event streams one credential may hold open on one Hub. Each holds an HTTP connection and a follower that
 * reads the log at least every second: unbounded, one token's client opening streams in a loop (a dashboard
 * reconnecting without closing) would hold the Hub's sockets and memory. The console holds one per tab,
 * `events tail` one.
 */
export const MAX_STREAMS_PER_PRINCIPAL = 16;

const cursorOf = (text: string, ctx: z.RefinementCtx): LogCursor => {
  const cursor = decodeCursor(text);
  if (cursor === null) ctx.addIssue({ code: 'custom', message: 'not a log cursor: pass next_cursor, an item cursor or an SSE id' });
  return cursor ?? z.NEVER;
};
const LogCursorText = z.string().transform(cursorOf);
/**
 * A time, rounded up to the millisecond the log records: a Date keeps no more, and truncating would move a
 * half-open range's bound before the time asked for (`since=…00.0009Z` taking in an event at `.000`).
 */
const Time = z.iso.datetime({ offset: true }).transform((s) => {
  const truncated = new Date(s);
  const beyondMs = /\.\d{3}(\d+)/.exec(s)?.[1] ?? '';
  return /[1-9]/.test(beyondMs) ? new Date(truncated.getTime() + 1) : truncated;
});
/** `type=A&type=B` or `type=A,B`. */
const Types = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [v].flat().flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s.length > 0));

const filterShape = {
  after: LogCursorText.optional(),
  stream_id: z.string().min(1).max(200).optional(),
  type: Types.optional(),
  correlation_id: z.string().min(1).max(200).optional(),
  actor: z.string().min(1).max(200).optional(),
  since: Time.optional(),
  until: Time.optional(),
  reports: z.enum(REPORT_FILTERS).optional(),
};
const ordered = (q: { since?: Date | undefined; until?: Date | undefined }) => !q.since || !q.until || q.since < q.until;
const orderIssue = { message: 'since must be before until', path: ['until'] };

const EventsQuery = z
  .object({
    ...filterShape,
    before: LogCursorText.optional(),
    /** `desc`: newest first, paging back with `before` = next_cursor. */
    order: z.enum(['asc', 'desc']).default('asc'),
    limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(100),
  })
  .refine(ordered, orderIssue);
const StreamQuery = z.object(filterShape).refine(ordered, orderIssue);

/**
 * Reports that repeat their node's last state (most of the log) are left out unless asked for: by `reports`, or
 * by naming reports, a stream (a node's: its reports are its history) or the type NodeReported.
 */
const reportsOf = (q: z.infer<typeof StreamQuery>) => q.reports ?? (q.stream_id !== undefined || q.type?.includes('NodeReported') ? 'all' : 'changed');

const toFilter = (q: z.infer<typeof StreamQuery>): LogFilter => ({
  reports: reportsOf(q),
  ...(q.stream_id !== undefined ? { streamId: q.stream_id } : {}),
  ...(q.type !== undefined ? { types: q.type } : {}),
  ...(q.correlation_id !== undefined ? { correlationId: q.correlation_id } : {}),
  ...(q.actor !== undefined ? { actor: q.actor } : {}),
  ...(q.since !== undefined ? { since: q.since } : {}),
  ...(q.until !== undefined ? { until: q.until } : {}),
});

/** The first events whose data's JSON text stays within `max` bytes, the first event always. */
function withinTextBytes<E extends { data: unknown }>(events: readonly E[], max: number): E[] {
  let bytes = 0;
  const kept: E[] = [];
  for (const e of events) {
    bytes += Buffer.byteLength(JSON.stringify(e.data));
    if (kept.length > 0 && bytes > max) break;
    kept.push(e);
  }
  return kept;
}

export const eventRoutes = [
  route({
    method: 'get',
    path: '/api/v1/events',
    operationId: 'listEvents',
    tag: 'events',
    summary:
      'The event log in commit-safe order, filtered by stream, type, correlation id, actor, time and reports (all must hold; ' +
      'repeated reports are left out unless asked for); oldest first, paging by `after` = next_cursor (null: nothing more ' +
      'is readable yet), or with `order=desc` newest first, paging back by `before` = next_cursor (null: the start of the log)',
    access: 'viewer',
    query: EventsQuery,
    responses: { 200: listOf(EventView) },
    async handle({ query, hub }) {
      // One more than asked for tells whether another page follows, as in the other lists.
      // A page of large events ends early (READ_DATA_BYTES): next_cursor says there is more, as after a full page.
      const range = { before: query.before, newestFirst: query.order === 'desc', maxDataBytes: READ_DATA_BYTES };
      const { events, cutShort } = await readAll(hub.database.db, query.after, query.limit + 1, toFilter(query), range);
      // The read counts data as stored, and text that compresses well is stored small: the page is cut again by its text.
      const items = withinTextBytes(events.slice(0, query.limit), READ_DATA_BYTES);
      const more = events.length > query.limit || cutShort || items.length < Math.min(events.length, query.limit);
      const last = items.at(-1);
      return { status: 200, body: { items: items.map(eventView), next_cursor: more && last ? encodeCursor(last.cursor) : null } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/events/stream',
    operationId: 'followEvents',
    held: true,
    tag: 'events',
    summary:
      'Follows the event log live as server-sent events (`id:` the cursor, `event:` the type, `data:` the event), ' +
      'from `Last-Event-ID` or `after`, else from now; the same filters as GET /events; a comment every 15 s',
    access: 'viewer',
    query: StreamQuery,
    requestHeaders: ['Last-Event-ID'],
    contentType: 'text/event-stream',
    responseHeaders: ['Cache-Control', 'X-Accel-Buffering'],
    errors: { 429: ['too_many_streams'] },
    responses: { 200: z.string() },
    async handle({ query, headers, hub, principal }) {
      const resumeFrom = headers['last-event-id'];
      const resumed = resumeFrom === undefined ? query.after : decodeCursor(resumeFrom);
      if (resumed === null) throw new HttpError(400, 'invalid_request', 'Last-Event-ID is not a log cursor: send the id of the last event received');
      const after = resumed ?? (await logEnd(hub.database.db));
      const filter = toFilter(query);
      // Counted and taken at once, after the last await: streams opened together cannot all pass the check.
      const open = [...hub.streams.followers].filter((f) => f.principal === principal.id).length;
      if (open >= MAX_STREAMS_PER_PRINCIPAL) {
        throw new HttpError(429, 'too_many_streams', `${principal.id} has ${open} event streams open on this Hub, the most one credential may: close one first`, {
          open,
          limit: MAX_STREAMS_PER_PRINCIPAL,
        });
      }
      let follower: Follower | null = null;
      const slot = {
        principal: principal.id,
        get cursor() {
          return follower?.cursor ?? after;
        },
      };
      hub.streams.followers.add(slot);
      return {
        status: 200,
        headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
        body: null,
        async stream(write, stop) {
          let heartbeat: NodeJS.Timeout | undefined;
          try {
            // An id alone, no data: a client's Last-Event-ID from the start, so one that reconnects before an event came resumes here.
            await write(`: following from ${encodeCursor(after)}\nid: ${encodeCursor(after)}\n\n`);
            // Reads the whole log and filters here, so the cursor moves past what the caller does not want.
            follower = follow(hub.database.db, hub.streams.appends, {
              after,
              async onEvents(events) {
                for (const e of events) {
                  if (stop.aborted) return;
                  if (matchesFilter(e, filter)) await write(`id: ${encodeCursor(e.cursor)}\nevent: ${e.type}\ndata: ${JSON.stringify(eventView(e))}\n\n`);
                }
              },
              onError: (error) => logFailure(hub.logger, 'event stream read failed; retrying', error),
            });
            heartbeat = setInterval(() => void write(': heartbeat\n\n'), HEARTBEAT_MS);
            await new Promise<void>((resolve) => {
              if (stop.aborted) resolve();
              else stop.addEventListener('abort', () => resolve(), { once: true });
            });
          } finally {
            clearInterval(heartbeat);
            hub.streams.followers.delete(slot);
            await follower?.stop();
          }
        },
      };
    },
  }),
];
