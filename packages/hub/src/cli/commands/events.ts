import type { Context, Command } from '../command.ts';
import { none } from '../command.ts';
import { EXIT } from '../exit.ts';
import { hubError } from '../hub-client.ts';
import { sleep } from '../io.ts';
import { readSse } from '../sse.ts';

/** An event as the History API returns it (API.md, "History"). */
interface HistoryEvent {
  position: number;
  stream_id: string;
  stream_version: number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: { actor?: string } & Record<string, unknown>;
  recorded_at: string;
}

const FILTERS = {
  after: { type: 'string', value: 'CURSOR', help: 'start after this cursor (printed on stderr by a previous run)' },
  stream: { type: 'string', value: 'ID', help: 'only events of this stream, e.g. node:edge-1' },
  type: { type: 'string', value: 'TYPE', help: 'only events of this type, e.g. NodeLabelsReplaced' },
} as const;

const PAGE = '100';

const humanLine = (e: HistoryEvent) => `${e.position}  ${e.recorded_at}  ${e.stream_id}#${e.stream_version}  ${e.type}  ${e.metadata.actor ?? '-'}\n`;

/** The cursor to resume from, on stderr, so stdout stays pure NDJSON. */
const printCursor = (ctx: Context, cursor: string | undefined) => ctx.io.err(`cursor: ${cursor ?? 'none (no event read)'}\n`);

export const eventCommands: Command[] = [
  {
    path: ['events', 'export'],
    synopsis: '[--after CURSOR] [--stream ID] [--type TYPE]',
    summary: 'export the event log as NDJSON on stdout, in commit-safe order; resumable',
    details:
      'Pages GET /events until no event is left, then prints "cursor: C" on stderr: `--after C` exports\n' +
      'what was appended since, without gaps or repeats. The output is NDJSON with or without --json.',
    options: FILTERS,
    positionals: none,
    async run(ctx, args) {
      let cursor = args.string('after');
      for (;;) {
        const page = await ctx.hub().request<{ items: HistoryEvent[]; next_cursor: string | null }>('GET', '/events', {
          query: { after: cursor, limit: PAGE, stream_id: args.string('stream'), type: args.string('type') },
        });
        for (const e of page.body.items) ctx.io.out(JSON.stringify(e) + '\n');
        if (page.body.next_cursor !== null) cursor = page.body.next_cursor;
        if (page.body.items.length === 0 || page.body.next_cursor === null) break;
      }
      printCursor(ctx, cursor);
      return EXIT.ok;
    },
  },
  {
    path: ['events', 'tail'],
    synopsis: '[--after CURSOR] [--stream ID] [--type TYPE]',
    summary: 'follow the event log live (server-sent events), reconnecting from the last cursor',
    details:
      'Streams GET /events/stream; after a dropped connection it reconnects with Last-Event-ID, so no event\n' +
      'is missed or repeated. --stream and --type filter here, on the events received. Stops on Ctrl-C and\n' +
      'prints "cursor: C" on stderr. --json prints each event as one JSON line.',
    options: FILTERS,
    positionals: none,
    async run(ctx, args) {
      let cursor = args.string('after');
      const { signal } = ctx.io;
      const wanted = (e: HistoryEvent) => (args.string('stream') ?? e.stream_id) === e.stream_id && (args.string('type') ?? e.type) === e.type;
      while (!signal.aborted) {
        try {
          const res = await ctx.hub().fetch('GET', '/events/stream', {
            headers: { accept: 'text/event-stream', ...(cursor !== undefined ? { 'last-event-id': cursor } : {}) },
            signal,
          });
          if (!res.ok) throw await hubError(res);
          for await (const m of readSse(res.body!)) {
            if (m.id !== undefined) cursor = m.id;
            if (m.data === '') continue;
            const event = JSON.parse(m.data) as HistoryEvent;
            if (wanted(event)) ctx.io.out(ctx.json ? JSON.stringify(event) + '\n' : humanLine(event));
          }
        } catch (e) {
          // Ctrl-C ends the loop; a dropped connection (fetch's TypeError "terminated") reconnects below.
          if (!signal.aborted && (e as Error).name !== 'TypeError') throw e;
        }
        await sleep(1000, signal);
      }
      printCursor(ctx, cursor);
      return EXIT.ok;
    },
  },
];
