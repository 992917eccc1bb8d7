import { targetProgress } from '@fleetplane/core';
import type { RolloutSummary, RolloutView } from '../../http/views/rollout.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { usageError } from '../exit.ts';
import { fields, labelText, printJson, table } from '../output.ts';
import { batchNumber, renderProgress, rolloutState, waitCell } from '../progress.ts';
import { HEALTH_OPTIONS, healthBody, healthText, TARGET_OPTIONS, targetBody } from '../targets.ts';

export const rolloutPath = (id: string) => `/rollouts/${encodeURIComponent(id)}`;

function showRollout(ctx: Context, r: RolloutView): number {
  if (ctx.json) {
    printJson(ctx.io, r);
    return 0;
  }
  ctx.io.out(
    fields([
      ['rollout', r.rollout_id],
      ['kind', r.kind],
      ['version', r.config_version],
      ['state', rolloutState(r)],
      ['recovery', r.recovery],
      ['health gate', healthText(r.health)],
      ['batch', `${batchNumber(r)} of ${r.batches} (${r.batch_size} per batch)`],
      ['selector', labelText(r.selector)],
      ['created by', r.created_by],
      ['approval', r.approval_id],
      ['rollback of', r.rollback_of],
      ['rolled back by', r.rolled_back_by],
    ]) +
      '\n' +
      table(
        ['node', 'batch', 'state', 'intent', 'waiting on', 'applied', 'failure', 'recovery'],
        r.targets.map((t) => [
          t.node_id,
          t.batch + 1,
          t.state,
          t.intent_state,
          waitCell(t.waiting_on),
          t.applied_config_version,
          [t.failure_class, t.failure_code].filter(Boolean).join(' '),
          t.recovery_claim ? `${t.recovery_phase ?? ''} ${t.recovery_claim.class}`.trim() : t.recovery_phase,
        ]),
      ) +
      '\n' +
      renderProgress(r),
  );
  return 0;
}

const action = (ctx: Context, id: string, body: Record<string, unknown>) =>
  ctx.hub().request<RolloutView>('POST', `${rolloutPath(id)}/actions`, { body });

export const rolloutCommands: Command[] = [
  {
    path: ['rollouts', 'create'],
    synopsis: '--version CV (--nodes a,b | --selector k=v,…) [--batch-size N] [--soak-ms MS [--max-unhealthy N] [--on-unhealthy pause|rollback]]',
    summary: 'roll a configuration version out in batches (refused with approval_required when the gate is on: see approvals submit)',
    details:
      'With --soak-ms, a health gate: each batch passes only after its targets converged and then stayed\n' +
      'converged and healthy for the soak; more than --max-unhealthy (default 0) targets against it pause the\n' +
      'rollout (--on-unhealthy pause, the default).',
    options: { ...TARGET_OPTIONS, ...HEALTH_OPTIONS },
    positionals: none,
    async run(ctx, args) {
      return showRollout(ctx, (await ctx.hub().request<RolloutView>('POST', '/rollouts', { body: { ...targetBody(args), ...healthBody(args) } })).body);
    },
  },
  {
    path: ['rollouts', 'list'],
    synopsis: '[--state S]',
    summary: 'list rollouts, newest first, their targets counted by state (rollouts get ID shows the targets)',
    options: { state: { type: 'string', value: 'S', help: 'only rollouts in this state: applying, paused, converged, cancelled, rolled_back' } },
    positionals: none,
    async run(ctx, args) {
      const rollouts = await ctx.hub().list<RolloutSummary>('/rollouts', { state: args.string('state') });
      if (ctx.json) printJson(ctx.io, rollouts);
      else
        ctx.io.out(
          table(
            ['rollout', 'kind', 'version', 'state', 'batch', 'targets', 'recovery', 'created by', 'created at'],
            rollouts.map((r) => [
              r.rollout_id,
              r.kind,
              r.config_version,
              rolloutState(r),
              `${batchNumber(r)}/${r.batches}`,
              targetProgress(r.target_counts),
              r.recovery,
              r.created_by,
              r.created_at,
            ]),
          ),
        );
      return 0;
    },
  },
  {
    path: ['rollouts', 'get'],
    synopsis: 'ID',
    summary: 'one rollout: state, batches, every target',
    options: {},
    positionals: oneId,
    async run(ctx, args) {
      return showRollout(ctx, (await ctx.hub().request<RolloutView>('GET', rolloutPath(args.positionals[0]!))).body);
    },
  },
  ...(['pause', 'resume', 'cancel'] as const).map(
    (name): Command => ({
      path: ['rollouts', name],
      synopsis: 'ID',
      summary: { pause: 'pause a rollout: no new batch starts', resume: 'resume a paused rollout', cancel: 'cancel a rollout (terminal)' }[name],
      options: {},
      positionals: oneId,
      async run(ctx, args) {
        return showRollout(ctx, (await action(ctx, args.positionals[0]!, { action: name })).body);
      },
    }),
  ),
  {
    path: ['rollouts', 'rollback'],
    synopsis: 'ID (--version CV | --scope target|failed|all_changed [--node N])',
    summary: 'roll back: to an earlier version (a new rollout on the targets it changed), or restore recovery points by scope',
    details:
      '--version CV creates a new rollout to CV on the targets this one changed (its batches never started are\n' +
      'left alone) and marks this one rolled_back. --scope restores the recovery\n' +
      'points this rollout captured: on one target (--node N), on the failed targets, or on every changed one.',
    options: {
      version: { type: 'string', value: 'CV', help: 'the version to roll back to' },
      scope: { type: 'string', value: 'target|failed|all_changed', help: 'restore recovery points instead' },
      node: { type: 'string', value: 'N', help: 'with --scope target: the target' },
    },
    positionals: oneId,
    async run(ctx, args) {
      const version = args.string('version');
      const scope = args.string('scope');
      const node = args.string('node');
      if ((version === undefined) === (scope === undefined)) throw usageError('give either --version or --scope');
      if (scope !== undefined && !['target', 'failed', 'all_changed'].includes(scope)) throw usageError('--scope is target, failed or all_changed');
      if ((scope === 'target') !== (node !== undefined)) throw usageError('--node goes with --scope target, and --scope target needs it');
      const body = version !== undefined ? { action: 'rollback', config_version: version } : { action: 'rollback', scope, ...(node !== undefined ? { node_id: node } : {}) };
      return showRollout(ctx, (await action(ctx, args.positionals[0]!, body)).body);
    },
  },
];
