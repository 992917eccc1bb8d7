import type { ApprovalView } from '../../http/views/approval.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { usageError } from '../exit.ts';
import { fields, labelText, printJson, table } from '../output.ts';
import { HEALTH_OPTIONS, healthBody, healthText, TARGET_OPTIONS, targetBody } from '../targets.ts';

const path = (id: string) => `/config-approvals/${encodeURIComponent(id)}`;

function showApproval(ctx: Context, a: ApprovalView): number {
  if (ctx.json) printJson(ctx.io, a);
  else
    ctx.io.out(
      fields([
        ['approval', a.approval_id],
        ['kind', a.kind],
        ['version', a.config_version],
        ['status', a.status],
        ['nodes', a.nodes.join(',')],
        ['selector', labelText(a.selector)],
        ['batch size', a.batch_size],
        ['health gate', healthText(a.health)],
        ['submitted by', a.submitted_by],
        ['decided by', a.decided_by],
        ['reason', a.reason],
        ['rollout', a.rollout_id],
        ['expires at', a.expires_at],
        ['republished from', a.republished_from],
      ]),
    );
  return 0;
}

export const approvalCommands: Command[] = [
  {
    path: ['approvals', 'list'],
    synopsis: '[--status S]',
    summary: 'list approval requests, newest first',
    options: { status: { type: 'string', value: 'S', help: 'only requests with this status: pending, approved, rejected, expired' } },
    positionals: none,
    async run(ctx, args) {
      const approvals = await ctx.hub().list<ApprovalView>('/config-approvals', { status: args.string('status') });
      if (ctx.json) printJson(ctx.io, approvals);
      else
        ctx.io.out(
          table(
            ['approval', 'kind', 'version', 'status', 'nodes', 'submitted by', 'decided by', 'rollout', 'expires at'],
            approvals.map((a) => [a.approval_id, a.kind, a.config_version, a.status, a.nodes.length, a.submitted_by, a.decided_by, a.rollout_id, a.expires_at]),
          ),
        );
      return 0;
    },
  },
  {
    path: ['approvals', 'submit'],
    synopsis:
      '--version CV (--nodes a,b | --selector k=v,…) [--batch-size N] [--soak-ms MS [--max-unhealthy N] [--on-unhealthy pause|rollback]] [--kind rollout|apply|rollback] [--republish-from ID]',
    summary: 'submit a rollout, apply or rollback for approval: version, resolved nodes and batch size are pinned now',
    details:
      'Another admin approves it (approvals approve ID); the rollout is created then, with the approver as actor.\n' +
      'A health gate (--soak-ms, as rollouts create takes it) is pinned with the request.',
    options: {
      ...TARGET_OPTIONS,
      ...HEALTH_OPTIONS,
      kind: { type: 'string', value: 'rollout|apply|rollback', help: 'what is proposed (default rollout)' },
      'republish-from': { type: 'string', value: 'ID', help: 'the rejected or expired request this one republishes' },
    },
    positionals: none,
    async run(ctx, args) {
      const kind = args.string('kind') ?? 'rollout';
      if (!['rollout', 'apply', 'rollback'].includes(kind)) throw usageError('--kind is rollout, apply or rollback');
      const body = { ...targetBody(args), ...healthBody(args), kind, republished_from: args.string('republish-from') ?? null };
      return showApproval(ctx, (await ctx.hub().request<ApprovalView>('POST', '/config-approvals', { body })).body);
    },
  },
  {
    path: ['approvals', 'approve'],
    synopsis: 'ID',
    summary: 'approve a pending request (admin, not its submitter): creates its rollout',
    options: {},
    positionals: oneId,
    async run(ctx, args) {
      return showApproval(ctx, (await ctx.hub().request<ApprovalView>('POST', `${path(args.positionals[0]!)}/approve`, { body: {} })).body);
    },
  },
  {
    path: ['approvals', 'reject'],
    synopsis: 'ID [--reason TEXT]',
    summary: 'reject a pending request (admin, not its submitter); it can be republished as a new request',
    options: { reason: { type: 'string', value: 'TEXT', help: 'why, recorded with the decision' } },
    positionals: oneId,
    async run(ctx, args) {
      const body = { reason: args.string('reason') ?? null };
      return showApproval(ctx, (await ctx.hub().request<ApprovalView>('POST', `${path(args.positionals[0]!)}/reject`, { body })).body);
    },
  },
];
