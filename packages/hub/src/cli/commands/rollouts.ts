import { targetProgress } from '@fleetplane/core';
import type { RolloutSummary, RolloutView } from '../../http/views/rollout.ts';
import { none, oneId, type Command, type Context } from '../command.ts';
import { usageError } from '../exit.ts';
import { fields, labelText, printJson, shown, table } from '../output.ts';
import { batchNumber, progressOf, renderProgress, rolloutState, SHOWN, some, targetTable, type Progress, type Some } from '../progress.ts';
import { countAll, readProgress, rolloutPath, targetsPage } from '../rollout-progress.ts';
import { HEALTH_OPTIONS, healthBody, healthText, TARGET_OPTIONS, targetBody } from '../targets.ts';

/** The rollout's fields, then at most SHOWN of its targets (and how many more), then its progress. */
function showRollout(ctx: Context, p: Progress, targets: Some | null): void {
  const r = p.rollout;
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
      (targets
        ? '\n' + targetTable(targets.items) + (targets.more ? `… and ${targets.more} more targets (fleetplane rollouts targets ${shown(r.rollout_id)})\n` : '')
        : '') +
      '\n' +
      renderProgress(p),
  );
}

/** A rollout an action answered, whole: as JSON, or shown as `rollouts get` shows it. */
function showAnswer(ctx: Context, r: RolloutView): number {
  if (ctx.json) printJson(ctx.io, r);
  else showRollout(ctx, progressOf(r), some(r.targets));
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
      return showAnswer(ctx, (await ctx.hub().request<RolloutView>('POST', '/rollouts', { body: { ...targetBody(args), ...healthBody(args) } })).body);
    },
  },
  {
    path: ['rollouts', 'list'],
    synopsis: '[--state S]',
    summary: 'list rollouts, newest first, their targets counted by state (rollouts targets ID lists the targets)',
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
    synopsis: 'ID [--summary]',
    summary: 'one rollout: state, a progress bar per batch, its first targets and what holds it up',
    details:
      `Reads the rollout's summary and a page of at most ${SHOWN} targets for each list it shows (the first targets, the\n` +
      'failed, those holding the rollout, the applying ones): a line says how many more, and the rollouts targets\n' +
      'command that pages them. With --json: the whole rollout, every target (GET /rollouts/{id}), or with\n' +
      '--summary the rollout without its targets, counted by batch (GET /rollouts/{id}/summary).',
    options: { summary: { type: 'boolean', help: 'the rollout without its targets: no table; with --json, GET /rollouts/{id}/summary' } },
    positionals: oneId,
    async run(ctx, args) {
      const id = args.positionals[0]!;
      const hub = ctx.hub();
      if (ctx.json) {
        printJson(ctx.io, (await hub.request('GET', args.flag('summary') ? `${rolloutPath(id)}/summary` : rolloutPath(id))).body);
        return 0;
      }
      const [progress, first] = await Promise.all([readProgress(hub, id), args.flag('summary') ? null : targetsPage(hub, id, { limit: SHOWN })]);
      showRollout(ctx, progress, first && { items: first.items, more: Math.max(0, countAll(progress.rollout) - first.items.length) });
      return 0;
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
        return showAnswer(ctx, (await action(ctx, args.positionals[0]!, { action: name })).body);
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
      return showAnswer(ctx, (await action(ctx, args.positionals[0]!, body)).body);
    },
  },
];
