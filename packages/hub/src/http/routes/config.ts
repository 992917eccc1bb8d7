import { CONFIG_CONTENT_MAX_BYTES, ConfigVersionId, NewConfigVersion } from '@fleetplane/core';
import { sql } from 'kysely';
import { z } from 'zod';
import { createConfigVersion } from '../../configuration/create-version.ts';
import { createRollout } from '../../rollouts/create-rollout.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { ConfigVersionSummary, configVersionSummary, ConfigVersionView, configVersionView } from '../views/config-version.ts';
import { listOf, newestFirstPage, olderThan, PageQuery } from '../views/list.ts';
import { readWholeRolloutView, RolloutView } from '../views/rollout.ts';

/**
 * A new version's body limit: its content's limit as JSON escapes it at worst (a control character is six
 * bytes, `\u0001`), with room for the other fields. The default 1 MiB refused a version of 1 MiB with 413.
 */
export const CONFIG_BODY_LIMIT = 6 * CONFIG_CONTENT_MAX_BYTES + 64 * 1024;

const NodeParams = z.object({ id: z.string().min(1).max(200) });

export const configRoutes = [
  route({
    method: 'post',
    path: '/api/v1/config-versions',
    operationId: 'createConfigVersion',
    tag: 'configuration',
    errors: { 422: ['config_version_not_found'] },
    summary: 'Store an immutable configuration version (content, format, optional parent); answers with its digest',
    access: 'operator',
    idempotent: true,
    body: NewConfigVersion,
    bodyLimit: CONFIG_BODY_LIMIT,
    responses: { 201: ConfigVersionView },
    async handle({ body, hub, run }) {
      const { result } = await run(createConfigVersion(body));
      const row = await hub.database.db.selectFrom('config_versions').selectAll().where('config_version', '=', result.configVersion).executeTakeFirstOrThrow();
      return { status: 201, body: configVersionView(row), headers: { Location: `/api/v1/config-versions/${result.configVersion}` } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/config-versions',
    operationId: 'listConfigVersions',
    tag: 'configuration',
    summary: 'List configuration versions, newest first, without their content (GET one version for it)',
    access: 'viewer',
    query: PageQuery,
    responses: { 200: listOf(ConfigVersionSummary) },
    async handle({ query, hub }) {
      // The content stays in the table: a page of versions of a MiB each would otherwise be a page of a hundred MiB.
      const q = hub.database.db
        .selectFrom('config_versions')
        .select(['config_version', 'digest', 'format', 'parent', 'created_by', 'correlation_id', 'created_at', sql<number>`octet_length(content)`.as('size_bytes')])
        .orderBy('created_at', 'desc')
        .orderBy('config_version', 'desc')
        .limit(query.limit + 1);
      const page = newestFirstPage(await q.where(olderThan(query.cursor, 'config_version')).execute(), query.limit, (r) => r.config_version);
      return { status: 200, body: { items: page.items.map(configVersionSummary), next_cursor: page.next_cursor } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/config-versions/:id',
    operationId: 'getConfigVersion',
    tag: 'configuration',
    errors: { 404: ['config_version_not_found'] },
    summary: 'One configuration version with its content',
    access: 'viewer',
    params: z.object({ id: ConfigVersionId }),
    responses: { 200: ConfigVersionView },
    async handle({ params, hub }) {
      const row = await hub.database.db.selectFrom('config_versions').selectAll().where('config_version', '=', params.id).executeTakeFirst();
      if (!row) throw new HttpError(404, 'config_version_not_found', `no configuration version ${params.id}`);
      return { status: 200, body: configVersionView(row) };
    },
  }),
  ...(['apply', 'rollback'] as const).map((kind) =>
    route({
      method: 'post',
      path: `/api/v1/nodes/:id/configuration/${kind}`,
      operationId: kind === 'apply' ? 'applyNodeConfiguration' : 'rollbackNodeConfiguration',
      tag: 'configuration',
      errors: { 403: ['approval_required'], 409: ['target_in_rollout'], 422: ['config_version_not_found', 'unknown_nodes'] },
      summary:
        kind === 'apply'
          ? 'Apply a configuration version to one node: a single-node rollout'
          : 'Roll one node back to an earlier configuration version: a single-node rollout (exempt from approval only when that version was applied there before)',
      access: 'operator',
      idempotent: true,
      params: NodeParams,
      body: z.object({ config_version: ConfigVersionId }).strict(),
      responses: { 201: RolloutView },
      async handle({ params, body, hub, run }) {
        const { result } = await run(
          createRollout(
            { kind, configVersion: body.config_version, targets: { nodes: [params.id] }, batchSize: 1, approvalId: null },
            hub.config.file.control_api.approval_required,
          ),
        );
        return { status: 201, body: await readWholeRolloutView(hub, result.rolloutId), headers: { Location: `/api/v1/rollouts/${result.rolloutId}` } };
      },
    }),
  ),
];
