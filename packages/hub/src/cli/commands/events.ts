import type { EventView } from '../../http/views/event.ts';
import { none, type Command, type Context } from '../command.ts';
import { EXIT } from '../exit.ts';
import { hubError, unavailable } from '../hub-client.ts';
import { sleep } from '../io.ts';
import { shown } from '../output.ts';
import { readSse } from '../sse.ts';

const FILTERS = {
  after: { type: 'string', value: 'CURSOR', help: 'start after this cursor (printed on stderr by a previous run, or an event\'s `cursor`)' },
  stream: { type: 'string', value: 'ID', help: 'only events of this stream, e.g. node:edge-1' },
  type: { type: 'string', value: 'TYPE', help: 'only events of this type, e.g. NodeLabelsReplaced' },
} as const;
const REPORTS = "changed (leave out the reports that repeated their node's last state), all or none";

/** How long `events tail` waits after a dropped connection before it connects again (to any Hub behind the address). */
export const RECONNECT_MS = 1000;

/** The largest page GET /events serves: an export reads the whole history. */
const PAGE = '1000';

const humanLine = (e: EventView) => `${shown(`${e.position}  ${e.recorded_at}  ${e.stream_id}#${e.stream_version}  ${e.type}  ${e.metadata.actor}`)}\n`;

/** The cursor to resume from, on stderr, so stdout stays pure NDJSON. */
const printCursor = (ctx: Context, cursor: string | undefined) => ctx.io.err(`cursor: ${cursor ?? 'none (no event read)'}\n`);

export const eventCommands: Command[] = [
  {
    path: ['events', 'export'],
    synopsis: '[--after CURSOR] [--stream ID] [--type TYPE] [--reports changed|all|none]',
    summary: 'export the event log as NDJSON on stdout, in commit-safe order; resumable',
    details:
      'Pages GET /events to the end of what is readable, then prints "cursor: C" (the last event\'s) on\n' +
      'stderr: `--after C` exports what was appended since, without gaps or repeats. The output is NDJSON\n' +
      'with or without --json. An export is the whole log: every report, unless --reports says otherwise.',
    options: { ...FILTERS, reports: { type: 'string', value: 'WHICH', help: `${REPORTS}; default all` } },
    positionals: none,
    async run(ctx, args) {
      let cursor = args.string('after');
      for (;;) {
        const page = await ctx.hub().request<{ items: EventView[]; next_cursor: string | null }>('GET', '/events', {
          query: { after: cursor, limit: PAGE, stream_id: args.string('stream'), type: args.string('type'), reports: args.string('reports') ?? 'all' },
        });
        for (const e of page.body.items) {
          ctx.io.out(JSON.stringify(e) + '\n');
          cursor = e.cursor;
        }
        if (page.body.next_cursor === null) break;
      }
      printCursor(ctx, cursor);
      return EXIT.ok;
    },
  },
  {
    path: ['events', 'tail'],
    synopsis: '[--after CURSOR] [--stream ID] [--type TYPE] [--reports changed|all|none]',
    summary: 'follow the event log live (server-sent events), reconnecting from the last cursor',
    details:
      'Streams GET /events/stream from --after, else from now; after a dropped connection it reconnects with\n' +
      'Last-Event-ID, so no event is missed or repeated. A Hub out of reach once the stream was open (a\n' +
      'restart) is tried again every second, said once on stderr; a Hub out of reach at the start exits 4, and a\n' +
      'refusal (4xx) ends the tail with exit 3. Stops on Ctrl-C; on every exit it prints "cursor: C" on stderr.\n' +
      '--json prints each event as one JSON line.',
    options: { ...FILTERS, reports: { type: 'string', value: 'WHICH', help: `${REPORTS}; default changed, all with --stream or --type NodeReported` } },
    positionals: none,
    async run(ctx, args) {
      let cursor = args.string('after');
      const { signal } = ctx.io;
      // Set once the stream was open: only then is a Hub out of reach a restart to wait out, not a wrong address.
      let followed = false;
      let away = false;
      try {
        const hub = ctx.hub();
        while (!signal.aborted) {
          try {
            const res = await hub.fetch('GET', '/events/stream', {
              query: { stream_id: args.string('stream'), type: args.string('type'), reports: args.string('reports') },
              headers: { accept: 'text/event-stream', ...(cursor !== undefined ? { 'last-event-id': cursor } : {}) },
              signal,
            });
            if (!res.ok) throw await hubError(res);
            if (away) ctx.io.err(`reconnected to the Hub at ${hub.url}\n`);
            followed = true;
            away = false;
            for await (const m of readSse(res.body!)) {
              if (m.id !== undefined) cursor = m.id;
              if (m.data === '') continue;
              ctx.io.out(ctx.json ? m.data + '\n' : humanLine(JSON.parse(m.data) as EventView));
            }
          } catch (e) {
            if (signal.aborted) break;
            // A dropped connection (fetch's TypeError "terminated") reconnects below; so does a Hub gone once the
            // stream was open (a restart: said once, until it answers again). A refusal (4xx) ends the tail.
            // By name: fetch's TypeError may come from another realm than this module's (a test's sandbox).
            if ((e as Error).name !== 'TypeError') {
              if (!followed || !unavailable(e)) throw e;
              if (!away) ctx.io.err(`${(e as Error).message}; reconnecting every ${RECONNECT_MS / 1000} s from the last cursor (Ctrl-C stops)\n`);
              away = true;
            }
          }
          await sleep(RECONNECT_MS, signal);
        }
      } finally {
        // On every way out, a refusal or failure included: `--after` resumes from here.
        printCursor(ctx, cursor);
      }
      return EXIT.ok;
    },
  },
];
