import { MODES } from '@fleetplane/core';
import type { z } from 'zod';
import type { NodeView, RetiredNodeView } from '../../http/views/node.ts';
import type { RecentReportsView } from '../../http/views/recent-reports.ts';
import type { ReconciliationSettings } from '../../http/views/settings.ts';
import { commaList, labelPairs } from '../args.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { usageError } from '../exit.ts';
import { fields, labelText, printJson, table } from '../output.ts';

const path = (id: string) => `/nodes/${encodeURIComponent(id)}`;

/** `6 in the last minute (0 changed), 360 in the last hour (3 changed)`. */
const reportRate = (r: RecentReportsView): string =>
  `${r.last_minute.reports} in the last minute (${r.last_minute.changed} changed), ${r.last_hour.reports} in the last hour (${r.last_hour.changed} changed)`;

/** A node as the Hub answered it: GET /nodes/{id} adds its recent reports. */
function showNode(ctx: Context, n: NodeView & { reports?: RecentReportsView }): number {
  if (ctx.json) printJson(ctx.io, n);
  else
    ctx.io.out(
      fields([
        ['node', n.node_id],
        ['labels', labelText(n.labels)],
        ['liveness', n.liveness],
        ['maintenance', n.maintenance],
        ['mode', n.mode_override ? `${n.mode} (override)` : n.mode],
        ['capabilities', n.capabilities.join(',')],
        ['data address', n.data_address],
        ['config applied', n.applied_config_version],
        ['config desired', n.desired_config_version],
        ['boot id', n.boot_id],
        ['last report', n.last_report_at ? `#${n.last_report_seq} at ${n.last_report_at}` : null],
        ...(n.reports ? [['reports', reportRate(n.reports)] as const] : []),
        ['last seen', n.last_seen_at],
      ]),
    );
  return 0;
}

/** A mode among `allowed`, checked before sending as every other value is: a typo is a usage error (exit 2). */
function mode(given: string, allowed: readonly string[]): string {
  if (!allowed.includes(given)) throw usageError(`the mode is ${allowed.join(', ')}, not ${given}`);
  return given;
}

function showMode(ctx: Context, m: ReconciliationSettings): number {
  if (ctx.json) printJson(ctx.io, m);
  else ctx.io.out(fields([['mode', `${m.mode} (${m.source === 'file' ? "the configuration file's" : 'set by an operator'})`]]));
  return 0;
}

export const nodeCommands: Command[] = [
  {
    path: ['nodes'],
    synopsis: '[-l k=v,…] [--liveness L] [--maintenance M]',
    summary: 'list nodes: liveness, maintenance, mode, configuration, labels',
    options: {
      selector: { type: 'string', short: 'l', value: 'k=v,…', help: 'only nodes carrying every label pair' },
      liveness: { type: 'string', value: 'L', help: 'only online, stale or offline nodes' },
      maintenance: { type: 'string', value: 'M', help: 'only active or draining nodes' },
    },
    positionals: none,
    async run(ctx, args) {
      const given = args.string('selector');
      // Checked here by the Hub's label syntax, so a typo is a usage error before anything is sent.
      const selector = given === undefined ? undefined : Object.entries(labelPairs(commaList(given), args.spelled('selector'))).map(([k, v]) => `${k}=${v}`).join(',');
      const nodes = await ctx.hub().list<NodeView>('/nodes', { selector, liveness: args.string('liveness'), maintenance: args.string('maintenance') });
      if (ctx.json) printJson(ctx.io, nodes);
      else
        ctx.io.out(
          table(
            ['node', 'liveness', 'maintenance', 'mode', 'config', 'labels'],
            nodes.map((n) => [n.node_id, n.liveness, n.maintenance, n.mode, n.applied_config_version, labelText(n.labels)]),
          ),
        );
      return 0;
    },
  },
  {
    path: ['nodes', 'get'],
    synopsis: 'ID',
    summary: 'one node, with how many reports it sent in the last minute and hour',
    options: {},
    positionals: oneId,
    async run(ctx, args) {
      return showNode(ctx, (await ctx.hub().request<NodeView & { reports: RecentReportsView }>('GET', path(args.positionals[0]!))).body);
    },
  },
  {
    path: ['nodes', 'retire'],
    synopsis: 'ID [--force]',
    summary: 'retire a node: it leaves the fleet for good and its agent credential is refused',
    details:
      'Refused (409) while the node has live intents (node_has_live_intents: move its streams off it first) or\n' +
      'is a target of a running rollout (node_in_running_rollout). --force retires it anyway: its live intents\n' +
      'are superseded and it leaves its rollouts as a cancelled target. Nothing is sent to the machine.',
    options: { force: { type: 'boolean', help: 'retire even with live intents or running rollouts, ending them' } },
    positionals: oneId,
    async run(ctx, args) {
      const query = args.flag('force') ? { force: 'true' } : {};
      const retired = (await ctx.hub().request<z.infer<typeof RetiredNodeView>>('DELETE', path(args.positionals[0]!), { query })).body;
      if (ctx.json) printJson(ctx.io, retired);
      else
        ctx.io.out(
          fields([
            ['node', retired.node_id],
            ['retired', `${retired.retired_at} by ${retired.retired_by}${retired.forced ? ' (forced)' : ''}`],
            ['superseded', retired.superseded_intents.join(',')],
            ['rollouts', retired.rollouts.join(',')],
          ]),
        );
      return 0;
    },
  },
  {
    path: ['label'],
    synopsis: 'ID k=v … [k- …] [--replace]',
    summary: "set a node's labels",
    details:
      'The Hub replaces the whole label map (PUT /nodes/{id}/labels); merging is done here: the CLI reads the\n' +
      'node, sets each k=v, removes each `k-`, and writes the result. That read and write are two requests: a\n' +
      'label change made by someone else in between is overwritten. With --replace the map becomes exactly the\n' +
      'pairs given (no pairs: no labels).',
    options: { replace: { type: 'boolean', help: 'write exactly these labels instead of merging them into the current ones' } },
    positionals: { min: 1, max: Infinity },
    async run(ctx, args) {
      const [id, ...items] = args.positionals as [string, ...string[]];
      const removed = items.filter((i) => /^[^=]+-$/.test(i)).map((i) => i.slice(0, -1));
      const set = labelPairs(
        items.filter((i) => !/^[^=]+-$/.test(i)),
        'label',
      );
      const current = args.flag('replace') ? {} : (await ctx.hub().request<NodeView>('GET', path(id))).body.labels;
      const labels = Object.fromEntries(Object.entries({ ...current, ...set }).filter(([k]) => !removed.includes(k)));
      return showNode(ctx, (await ctx.hub().request<NodeView>('PUT', `${path(id)}/labels`, { body: { labels } })).body);
    },
  },
  {
    path: ['mode'],
    synopsis: '',
    summary: "the global reconciliation mode, and whether it is the configuration file's or an operator's",
    options: {},
    positionals: none,
    async run(ctx) {
      return showMode(ctx, (await ctx.hub().request<ReconciliationSettings>('GET', '/settings/reconciliation')).body);
    },
  },
  {
    path: ['mode', 'set'],
    synopsis: 'observe|lifecycle|configuration',
    summary: 'set the global reconciliation mode (nodes with an override keep theirs)',
    options: {},
    positionals: oneId,
    async run(ctx, args) {
      const body = { mode: mode(args.positionals[0]!, MODES) };
      return showMode(ctx, (await ctx.hub().request<ReconciliationSettings>('PUT', '/settings/reconciliation', { body })).body);
    },
  },
  {
    path: ['mode', 'node'],
    synopsis: 'ID observe|lifecycle|configuration|global',
    summary: "override one node's reconciliation mode; `global` removes the override",
    options: {},
    positionals: { min: 2, max: 2 },
    async run(ctx, args) {
      const [id, given] = args.positionals as [string, string];
      const chosen = mode(given, [...MODES, 'global']);
      const body = { mode: chosen === 'global' ? null : chosen };
      return showNode(ctx, (await ctx.hub().request<NodeView>('PUT', `${path(id)}/mode`, { body })).body);
    },
  },
  ...(['drain', 'undrain'] as const).map(
    (action): Command => ({
      path: [action],
      synopsis: 'ID',
      summary:
        action === 'drain'
          ? 'drain a node: no new attempts; its streams keep their desired state (drain is not stop)'
          : 'undrain a node: reconciliation resumes at the current generations',
      options: {},
      positionals: oneId,
      async run(ctx, args) {
        return showNode(ctx, (await ctx.hub().request<NodeView>('POST', `${path(args.positionals[0]!)}/${action}`)).body);
      },
    }),
  ),
];
