import type { DriftItem } from '../../http/views/drift.ts';
import { none, type Command } from '../command.ts';
import { EXIT } from '../exit.ts';
import { printJson, table } from '../output.ts';

/** What the Hub wants where the row differs: a stream's generation and state, or a configuration version. */
function desired(d: DriftItem): string | null {
  if (d.kind === 'config_drift') return d.desired_config_version;
  if (d.kind === 'stale_node') return null;
  // A stream a node runs that the Hub holds no desired state for (writes its log lost: db/README.md, "After a restore").
  if (d.desired_generation === null) return 'no desired state';
  return `${d.desired_state} @ gen ${d.desired_generation}`;
}

/** What the node last reported of it. */
function observed(d: DriftItem): string | null {
  if (d.kind === 'config_drift') return d.applied_config_version ?? 'none applied';
  if (d.kind === 'stale_node') return 'no report for too long';
  return d.observed_state === null ? 'not reported' : `${d.observed_state} @ gen ${d.observed_generation}`;
}

export const driftCommand: Command = {
  path: ['drift'],
  synopsis: '[--node ID] [--stream ID]',
  summary: 'where what nodes report differs from what is desired; exit 1 when anything differs',
  details:
    'One row per node and stream whose reported generation or state is not the desired one (a node the\n' +
    'placement left that still runs the stream is desired `stopped`; one the Hub holds no desired state for,\n' +
    'as after a restore from a backup, is `no desired state`), per node whose reported configuration\n' +
    'is not the desired version, and per stale node. Nothing differs: exit 0. Something differs: the rows and\n' +
    'exit 1, as `kubectl diff` does, so a script can wait for convergence. It reads GET /api/v1/drift; a\n' +
    '--node or --stream that does not exist is refused (node_not_found, stream_not_found: exit 3).',
  options: {
    node: { type: 'string', value: 'ID', help: 'only this node' },
    stream: { type: 'string', value: 'ID', help: 'only this stream' },
  },
  positionals: none,
  async run(ctx, args) {
    const node = args.string('node');
    const stream = args.string('stream');
    // A node or stream that does not exist is said (404, exit 3), not reported as one without drift.
    const [{ items }] = await Promise.all([
      ctx.hub().request<{ items: DriftItem[] }>('GET', '/drift').then((r) => r.body),
      node !== undefined && ctx.hub().request('GET', `/nodes/${encodeURIComponent(node)}`),
      stream !== undefined && ctx.hub().request('GET', `/streams/${encodeURIComponent(stream)}`),
    ]);
    const drift = items.filter((d) => (node === undefined || d.node_id === node) && (stream === undefined || d.stream_id === stream));
    if (ctx.json) printJson(ctx.io, drift);
    else if (drift.length === 0) ctx.io.out('no drift: every node reports what is desired\n');
    else
      ctx.io.out(
        table(
          ['node', 'stream', 'kind', 'desired', 'observed', 'last seen'],
          drift.map((d) => [d.node_id, d.stream_id, d.kind, desired(d), observed(d), d.last_seen_at]),
        ),
      );
    return drift.length === 0 ? EXIT.ok : EXIT.failed;
  },
};
