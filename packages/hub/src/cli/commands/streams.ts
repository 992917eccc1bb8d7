import type { StreamView } from '../../http/views/stream.ts';
import { commaList } from '../args.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { usageError } from '../exit.ts';
import { HubError } from '../hub-client.ts';
import { fields, printJson, table } from '../output.ts';
import { waitCell } from '../progress.ts';

const path = (id: string) => `/streams/${encodeURIComponent(id)}`;

const observedText = (s: StreamView) =>
  Object.entries(s.observed)
    .map(([node, o]) => `${node}:${o.generation}/${o.state}`)
    .join(',');

function showStream(ctx: Context, s: StreamView): number {
  if (ctx.json) {
    printJson(ctx.io, s);
    return 0;
  }
  ctx.io.out(
    fields([
      ['stream', s.stream_id],
      ['generation', s.generation],
      ['desired', s.desired_state],
      ['placement', `${s.placement.nodes.join(',')}${s.placement.split ? ' (split)' : ''}`],
      ['spec', s.spec],
      ['observed', observedText(s)],
      ...(s.deleting ? [['deleting', `since ${s.deletion_requested_at}: removed once every node reports it stopped`] as const] : []),
    ]),
  );
  if (s.intents.length) {
    ctx.io.out(
      '\n' +
        table(
          ['intent', 'node', 'gen', 'state', 'retries', 'failure', 'waiting on'],
          s.intents.map((i) => [i.intent_id, i.node_id, i.generation, i.state, i.retry_count, i.failure_code ?? i.failure_class, waitCell(i.waiting_on)]),
        ),
    );
  }
  return 0;
}

/** The spec to write: --spec JSON, or --command with its --arg list, or (neither) the stream's current spec. */
function specFrom(args: Parameters<Command['run']>[1]): Record<string, unknown> | null {
  const json = args.string('spec');
  const command = args.string('command');
  if (json !== undefined && (command !== undefined || args.strings('arg').length)) throw usageError('give --spec or --command/--arg, not both');
  if (json !== undefined) {
    let spec: unknown;
    try {
      spec = JSON.parse(json);
    } catch (e) {
      throw usageError(`--spec is not JSON: ${(e as Error).message}`);
    }
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw usageError('--spec must be a JSON object');
    return spec as Record<string, unknown>;
  }
  if (command !== undefined) return { command, args: args.strings('arg') };
  if (args.strings('arg').length) throw usageError('--arg needs --command');
  return null;
}

export const streamCommands: Command[] = [
  {
    path: ['streams', 'set'],
    synopsis: 'ID --state running|stopped [--nodes a,b [--split]] [--spec JSON | --command CMD [--arg A …]] [--if-match G]',
    summary: "write a stream's desired state: a new generation, one intent per placement node",
    details:
      'Without --spec or --command the stream keeps its current spec, and without --nodes its placement (a new\n' +
      'stream needs --nodes): the CLI reads the stream and writes with If-Match set to the generation it\n' +
      'read, so a concurrent write makes this one fail (412 generation_conflict) instead of being\n' +
      'overwritten. --if-match G sets that generation yourself.',
    options: {
      state: { type: 'string', value: 'running|stopped', help: 'desired state' },
      nodes: { type: 'string', value: 'a,b', help: 'placement: the nodes, comma-separated' },
      split: { type: 'boolean', help: 'split the stream over the nodes (they need network_shuffle and a data address)' },
      spec: { type: 'string', value: 'JSON', help: 'the whole spec, a JSON object' },
      command: { type: 'string', value: 'CMD', help: 'spec.command' },
      arg: { type: 'string', multiple: true, value: 'A', help: 'spec.args, one per --arg, in order (--arg=-x for a value starting with -)' },
      'if-match': { type: 'string', value: 'G', help: 'refuse (412) unless the stream is at generation G' },
    },
    positionals: oneId,
    async run(ctx, args) {
      const id = args.positionals[0]!;
      const state = args.required('state');
      if (state !== 'running' && state !== 'stopped') throw usageError('--state is running or stopped');
      const nodes = args.string('nodes');
      if (nodes === undefined && args.flag('split')) throw usageError('--split goes with --nodes');
      let placement = nodes === undefined ? null : { nodes: commaList(nodes), split: args.flag('split') };
      let spec = specFrom(args);
      let ifMatch = args.string('if-match');
      if (spec === null || placement === null) {
        let current: StreamView | null = null;
        try {
          current = (await ctx.hub().request<StreamView>('GET', path(id))).body;
        } catch (e) {
          if (!(e instanceof HubError && e.status === 404)) throw e;
        }
        if (current === null && placement === null) throw usageError(`stream ${id} does not exist yet: give its placement with --nodes`);
        spec ??= current?.spec ?? {};
        placement ??= current!.placement;
        if (current !== null) ifMatch ??= String(current.generation);
      }
      const written = await ctx.hub().request<StreamView>('PUT', path(id), {
        body: { desired_state: state, spec, placement },
        headers: ifMatch !== undefined ? { 'if-match': `"${ifMatch}"` } : {},
      });
      return showStream(ctx, written.body);
    },
  },
  {
    path: ['streams', 'delete'],
    synopsis: 'ID [--if-match G]',
    summary: 'delete a stream: stopped on every node, then removed once every node reports it stopped',
    options: { 'if-match': { type: 'string', value: 'G', help: 'refuse (412) unless the stream is at generation G' } },
    positionals: oneId,
    async run(ctx, args) {
      const ifMatch = args.string('if-match');
      const deleted = await ctx.hub().request<StreamView>('DELETE', path(args.positionals[0]!), { headers: ifMatch !== undefined ? { 'if-match': `"${ifMatch}"` } : {} });
      return showStream(ctx, deleted.body);
    },
  },
  {
    path: ['streams', 'list'],
    synopsis: '',
    summary: 'list streams: generation, desired state, placement, what the nodes report',
    options: {},
    positionals: none,
    async run(ctx) {
      const streams = await ctx.hub().list<StreamView>('/streams');
      if (ctx.json) printJson(ctx.io, streams);
      else
        ctx.io.out(
          table(
            ['stream', 'gen', 'desired', 'nodes', 'split', 'observed'],
            streams.map((s) => [s.stream_id, s.generation, s.desired_state, s.placement.nodes.join(','), s.placement.split ? 'yes' : 'no', observedText(s)]),
          ),
        );
      return 0;
    },
  },
  {
    path: ['streams', 'get'],
    synopsis: 'ID',
    summary: 'one stream: desired and observed state, intents',
    options: {},
    positionals: oneId,
    async run(ctx, args) {
      return showStream(ctx, (await ctx.hub().request<StreamView>('GET', path(args.positionals[0]!))).body);
    },
  },
];
