import { BatchSize, ConfigVersionId, HealthGate, Targets } from '@fleetplane/core';
import { z } from 'zod';
import { decideApprovalRequest } from '../../approvals/decide-approval.ts';
import { submitApproval } from '../../approvals/submit-approval.ts';
import type { HubContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { ApprovalView, approvalView } from '../views/approval.ts';
import { ApprovalSettings } from '../views/settings.ts';
import { listOf, newestFirstPage, olderThan, PageQuery } from '../views/list.ts';

const ApprovalParams = z.object({ id: z.string().min(1).max(200) });

const SubmitBody = z
  .object({
    kind: z.enum(['rollout', 'apply', 'rollback']).default('rollout'),
    config_version: ConfigVersionId,
    targets: Targets,
    batch_size: BatchSize,
    /** The proposed rollout's health gate (SPEC L3), pinned with it. */
    health: HealthGate.optional(),
    /** The rejected or expired request this one republishes (the console pre-fills from it). */
    republished_from: z.string().min(1).max(200).nullable().default(null),
  })
  .strict()
  // An apply is the node-level apply (G4): one node the operator names. Its intents go through a recovery
  // hold (I13), which a rollout's batches never do: an apply by selector would take a whole fleet past them.
  .refine((b) => b.kind !== 'apply' || b.targets.nodes?.length === 1, { message: 'an apply names exactly one node (targets.nodes); a change to several nodes is a rollout', path: ['targets'] });

async function readApproval(hub: HubContext, approvalId: string) {
  const row = await hub.database.db.selectFrom('config_approvals').selectAll().where('approval_id', '=', approvalId).executeTakeFirst();
  if (!row) throw new HttpError(404, 'approval_not_found', `no approval request ${approvalId}`, { approval_id: approvalId });
  return approvalView(row);
}

export const approvalRoutes = [
  route({
    method: 'get',
    path: '/api/v1/settings/approvals',
    operationId: 'getApprovalSettings',
    tag: 'configuration',
    summary: 'Whether configuration changes need a second person\'s approval (control_api.approval_required), and how long a request waits',
    access: 'viewer',
    responses: { 200: ApprovalSettings },
    handle: async ({ hub }) => ({
      status: 200,
      body: { approval_required: hub.config.file.control_api.approval_required, approval_ttl_ms: hub.config.file.control_api.approval_ttl_ms },
    }),
  }),
  route({
    method: 'post',
    path: '/api/v1/config-approvals',
    operationId: 'submitApproval',
    tag: 'configuration',
    errors: { 404: ['approval_not_found'], 409: ['approval_not_republishable'], 422: ['config_version_not_found', 'unknown_nodes', 'no_matching_nodes'] },
    summary: 'Submit a rollout, apply or rollback for approval: validated and pinned (version, resolved nodes, batch size); creates no rollout',
    access: 'operator',
    idempotent: true,
    body: SubmitBody,
    responses: { 201: ApprovalView },
    async handle({ body, hub, run }) {
      const { result } = await run(
        submitApproval(
          { kind: body.kind, configVersion: body.config_version, targets: body.targets, batchSize: body.batch_size, health: body.health ?? null, republishedFrom: body.republished_from },
          hub.config.file.control_api.approval_ttl_ms,
        ),
      );
      return { status: 201, body: await readApproval(hub, result.approvalId), headers: { Location: `/api/v1/config-approvals/${result.approvalId}` } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/config-approvals',
    operationId: 'listApprovals',
    tag: 'configuration',
    summary: 'List approval requests, newest first (status= filters)',
    access: 'viewer',
    query: PageQuery.extend({ status: ApprovalView.shape.status.optional() }),
    responses: { 200: listOf(ApprovalView) },
    async handle({ query, hub }) {
      let q = hub.database.db.selectFrom('config_approvals').selectAll().orderBy('created_at', 'desc').orderBy('approval_id', 'desc').limit(query.limit + 1);
      if (query.status) q = q.where('status', '=', query.status);
      const page = newestFirstPage(await q.where(olderThan(query.cursor, 'approval_id')).execute(), query.limit, (r) => r.approval_id);
      return { status: 200, body: { items: page.items.map(approvalView), next_cursor: page.next_cursor } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/config-approvals/:id',
    operationId: 'getApproval',
    tag: 'configuration',
    errors: { 404: ['approval_not_found'] },
    summary: 'One approval request',
    access: 'viewer',
    params: ApprovalParams,
    responses: { 200: ApprovalView },
    async handle({ params, hub }) {
      return { status: 200, body: await readApproval(hub, params.id) };
    },
  }),
  ...(['approve', 'reject'] as const).map((decision) =>
    route({
      method: 'post',
      path: `/api/v1/config-approvals/:id/${decision}`,
      operationId: `${decision}Approval`,
      tag: 'configuration',
      errors: { 403: ['self_approval_forbidden'], 404: ['approval_not_found'], 409: ['approval_not_pending', 'target_in_rollout'], ...(decision === 'approve' ? { 422: ['unknown_nodes'] } : {}) },
      summary:
        decision === 'approve'
          ? 'Approve a pending request (admin, never its submitter): creates its rollout with the approver as actor'
          : 'Reject a pending request (admin, never its submitter); it can be republished as a new request',
      access: 'admin',
      params: ApprovalParams,
      body: decision === 'approve' ? z.object({}).strict() : z.object({ reason: z.string().max(4096).nullable().default(null) }).strict(),
      responses: { 200: ApprovalView },
      async handle({ params, body, hub, run, principal }) {
        const reason = (body as { reason?: string | null }).reason ?? null;
        const { result } = await run(decideApprovalRequest(params.id, decision, reason, principal.id));
        if (result.refused) throw new HttpError(409, result.refused.code, result.refused.message, { approval_id: params.id });
        return { status: 200, body: await readApproval(hub, params.id) };
      },
    }),
  ),
];
