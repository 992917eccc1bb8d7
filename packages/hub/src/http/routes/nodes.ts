import { NewLabels, parseSelectorText } from '@fleetplane/core';
import { sql } from 'kysely';
import { z } from 'zod';
import { replaceLabels } from '../../nodes/replace-labels.ts';
import { logFailure } from '../../logger.ts';
import { retireNode } from '../../nodes/retire-node.ts';
import { countRecentReports, NO_REPORTS } from '../../event-store/recent-reports.ts';
import { setMaintenance } from '../../nodes/set-maintenance.ts';
import { setGlobalMode, setNodeMode } from '../../nodes/set-mode.ts';
import { globalMode, globalModeSetting } from '../../reconcile/load.ts';
import { Mode } from '../../config.ts';
import type { HubContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { listOf, PageQuery } from '../views/list.ts';
import { Liveness, livenessSql, NodeCounts, NodeView, nodeView, RetiredNodeView, retiredNodeView } from '../views/node.ts';
import { recentReportsView, RecentReportsView, ReportRateView } from '../views/recent-reports.ts';
import { ReconciliationSettings } from '../views/settings.ts';

const NodeParams = z.object({ id: z.string().min(1).max(200) });

// What narrows the fleet, for the list and its counts alike: a console shows a page and how many match.
const NodeFilters = z.object({
  selector: z
    .string()
    .transform((text, ctx) => {
      const parsed = parseSelectorText(text);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: `selector ${parsed.problem}` });
      return z.NEVER;
    })
    .optional(),
  liveness: Liveness.optional(),
  maintenance: NodeView.shape.maintenance.optional(),
  search: z.string().max(200).optional().describe('node ids containing this text'),
});

const NodesQuery = PageQuery.extend(NodeFilters.shape);

/** The nodes `filters` select: every one given must hold. */
function filtered(hub: HubContext, filters: z.infer<typeof NodeFilters>) {
  let q = hub.database.db.selectFrom('nodes');
  if (filters.selector) q = q.where(sql<boolean>`labels @> ${JSON.stringify(filters.selector)}::jsonb`);
  if (filters.maintenance) q = q.where('maintenance', '=', filters.maintenance);
  if (filters.liveness) q = q.where(livenessSql(hub.clock.now(), hub.config), '=', filters.liveness);
  if (filters.search) q = q.where(sql<boolean>`strpos(node_id, ${filters.search}) > 0`);
  return q;
}

export async function readNode(hub: HubContext, nodeId: string): Promise<NodeView> {
  const row = await hub.database.db.selectFrom('nodes').selectAll().where('node_id', '=', nodeId).executeTakeFirst();
  if (!row) {
    // Retired nodes are gone from the fleet, as `kubectl get node` forgets a deleted one; the answer says when.
    const retired = await hub.database.db.selectFrom('retired_nodes').select('retired_at').where('node_id', '=', nodeId).executeTakeFirst();
    const why = retired ? `was retired at ${retired.retired_at.toISOString()}` : 'is not registered';
    throw new HttpError(404, 'node_not_found', `node ${nodeId} ${why}`, { node_id: nodeId, ...(retired && { retired_at: retired.retired_at.toISOString() }) });
  }
  return nodeView(row, hub.clock.now(), hub.config, await globalMode(hub.database.db, hub.config.file.reconciliation.mode));
}

export const nodeRoutes = [
  route({
    method: 'get',
    path: '/api/v1/nodes',
    operationId: 'listNodes',
    tag: 'nodes',
    summary: 'List nodes, ordered by id; filtered by a label selector (`env=prod,tier=edge`), liveness, maintenance and text in the id',
    access: 'viewer',
    query: NodesQuery,
    responses: { 200: listOf(NodeView) },
    async handle({ query, hub }) {
      let q = filtered(hub, query).selectAll().orderBy('node_id').limit(query.limit + 1);
      if (query.cursor) q = q.where('node_id', '>', query.cursor);
      const rows = await q.execute();
      const page = rows.slice(0, query.limit);
      const now = hub.clock.now();
      const mode = await globalMode(hub.database.db, hub.config.file.reconciliation.mode);
      return {
        status: 200,
        body: {
          items: page.map((r) => nodeView(r, now, hub.config, mode)),
          next_cursor: rows.length > query.limit ? page.at(-1)!.node_id : null,
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/node-counts',
    operationId: 'countNodes',
    tag: 'nodes',
    summary: 'How many nodes the filters of GET /nodes select, in all and by liveness and maintenance: one row, whatever the size of the fleet',
    access: 'viewer',
    query: NodeFilters,
    responses: { 200: NodeCounts },
    async handle({ query, hub }) {
      const liveness = livenessSql(hub.clock.now(), hub.config);
      const row = await filtered(hub, query)
        .select([
          sql<string>`count(*)`.as('total'),
          sql<string>`count(*) FILTER (WHERE ${liveness} = 'online')`.as('online'),
          sql<string>`count(*) FILTER (WHERE ${liveness} = 'stale')`.as('stale'),
          sql<string>`count(*) FILTER (WHERE ${liveness} = 'offline')`.as('offline'),
          sql<string>`count(*) FILTER (WHERE maintenance = 'draining')`.as('draining'),
        ])
        .executeTakeFirstOrThrow();
      const n = (v: string) => Number(v);
      return {
        status: 200,
        body: {
          total: n(row.total),
          liveness: { online: n(row.online), stale: n(row.stale), offline: n(row.offline) },
          maintenance: { active: n(row.total) - n(row.draining), draining: n(row.draining) },
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/nodes/:id',
    operationId: 'getNode',
    tag: 'nodes',
    errors: { 404: ['node_not_found'] },
    summary: 'One node, with its reports of the last minute and hour (how many, how many changed its state)',
    access: 'viewer',
    params: NodeParams,
    responses: { 200: NodeView.extend({ reports: RecentReportsView }) },
    async handle({ params, hub }) {
      const node = await readNode(hub, params.id);
      const recent = await countRecentReports(hub.database.db, [node.node_id], hub.clock.now());
      return { status: 200, body: { ...node, reports: recentReportsView(recent.get(node.node_id) ?? NO_REPORTS) } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/report-rates',
    operationId: 'listReportRates',
    tag: 'nodes',
    summary: "Each node's reports of the last minute and hour (how many, how many changed its state) and its last report, ordered by node id",
    access: 'viewer',
    query: PageQuery,
    responses: { 200: listOf(ReportRateView) },
    async handle({ query, hub }) {
      let q = hub.database.db.selectFrom('nodes').select(['node_id', 'last_report_seq', 'last_report_at']).orderBy('node_id').limit(query.limit + 1);
      if (query.cursor) q = q.where('node_id', '>', query.cursor);
      const rows = await q.execute();
      const page = rows.slice(0, query.limit);
      const recent = await countRecentReports(hub.database.db, page.map((r) => r.node_id), hub.clock.now());
      return {
        status: 200,
        body: {
          items: page.map((r) => ({
            node_id: r.node_id,
            last_report_seq: r.last_report_seq,
            last_report_at: r.last_report_at?.toISOString() ?? null,
            ...recentReportsView(recent.get(r.node_id) ?? NO_REPORTS),
          })),
          next_cursor: rows.length > query.limit ? page.at(-1)!.node_id : null,
        },
      };
    },
  }),
  route({
    method: 'put',
    path: '/api/v1/nodes/:id/labels',
    operationId: 'replaceNodeLabels',
    tag: 'nodes',
    errors: { 404: ['node_not_found'] },
    summary: 'Replace the whole label map of a node (at most 16 labels; keys and values 1-63 letters, digits, "-", "_", "."; a key may start with "prefix/")',
    access: 'operator',
    params: NodeParams,
    body: z.object({ labels: NewLabels }).strict(),
    invalidCode: 'invalid_labels',
    responses: { 200: NodeView },
    async handle({ params, body, hub, run }) {
      await run(replaceLabels(params.id, body.labels));
      return { status: 200, body: await readNode(hub, params.id) };
    },
  }),
  ...(['drain', 'undrain'] as const).map((action) =>
    route({
      method: 'post',
      path: `/api/v1/nodes/:id/${action}`,
      operationId: `${action}Node`,
      tag: 'nodes',
      errors: { 404: ['node_not_found'] },
      summary:
        action === 'drain'
          ? 'Drain a node: no new attempts; its desired streams are kept (drain is not stop)'
          : 'Undrain a node: reconciliation resumes at the current generations',
      access: 'operator',
      params: NodeParams,
      responses: { 200: NodeView },
      async handle({ params, hub, run }) {
        await run(setMaintenance(params.id, action === 'drain'));
        return { status: 200, body: await readNode(hub, params.id) };
      },
    }),
  ),
  route({
    method: 'put',
    path: '/api/v1/nodes/:id/mode',
    operationId: 'setNodeMode',
    tag: 'nodes',
    errors: { 404: ['node_not_found'] },
    summary: "Override the reconciliation mode for one node (null follows the global mode)",
    access: 'operator',
    params: NodeParams,
    body: z.object({ mode: Mode.nullable() }).strict(),
    responses: { 200: NodeView },
    async handle({ params, body, hub, run }) {
      await run(setNodeMode(params.id, body.mode));
      return { status: 200, body: await readNode(hub, params.id) };
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/nodes/:id',
    operationId: 'retireNode',
    tag: 'nodes',
    errors: { 404: ['node_not_found'], 409: ['node_in_running_rollout', 'node_has_live_intents'] },
    summary:
      'Retire a node: it leaves the fleet for good and its agent credential is refused; refused while it has live intents or is in a running rollout, unless force=true (Idempotency-Key)',
    access: 'operator',
    idempotent: true,
    params: NodeParams,
    query: z.object({ force: z.enum(['true', 'false']).default('false') }),
    responses: { 200: RetiredNodeView },
    async handle({ params, query, hub, run }) {
      const { result } = await run(retireNode(params.id, query.force === 'true'));
      // Its agent's long polls, on any Hub, learn it now rather than at the end of their wait.
      await hub.transport.offer([params.id]).catch((error: unknown) => logFailure(hub.logger, 'waking a retired node\'s polls failed', error));
      const row = await hub.database.db.selectFrom('retired_nodes').selectAll().where('node_id', '=', params.id).executeTakeFirstOrThrow();
      return { status: 200, body: { ...retiredNodeView(row), ...result } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/settings/reconciliation',
    operationId: 'getReconciliationSettings',
    tag: 'nodes',
    summary: "The global reconciliation mode, and whether it is the configuration file's or an operator's",
    access: 'viewer',
    responses: { 200: ReconciliationSettings },
    async handle({ hub }) {
      return { status: 200, body: await globalModeSetting(hub.database.db, hub.config.file.reconciliation.mode) };
    },
  }),
  route({
    method: 'put',
    path: '/api/v1/settings/reconciliation',
    operationId: 'setReconciliationMode',
    tag: 'nodes',
    summary: 'Set the global reconciliation mode: observe, lifecycle or configuration',
    access: 'operator',
    body: z.object({ mode: Mode }).strict(),
    responses: { 200: ReconciliationSettings },
    async handle({ body, hub, run }) {
      await run(setGlobalMode(body.mode, hub.config.file.reconciliation.mode));
      return { status: 200, body: await globalModeSetting(hub.database.db, hub.config.file.reconciliation.mode) };
    },
  }),
];
