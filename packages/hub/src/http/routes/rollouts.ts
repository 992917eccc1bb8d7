import { BatchSize, ConfigVersionId, HealthGate, ROLLOUT_STATES, TARGET_STATES, Targets } from '@fleetplane/core';
import { z } from 'zod';
import { createRollout } from '../../rollouts/create-rollout.ts';
import { rolloutAction } from '../../rollouts/rollout-action.ts';
import { route } from '../route.ts';
import { listOf, newestFirstPage, olderThan, PageQuery } from '../views/list.ts';
import {
  parseTargetsCursor,
  readOneRolloutSummary,
  readRolloutSummaries,
  readRolloutTargets,
  readRolloutView,
  readWholeRolloutView,
  RolloutSummary,
  RolloutSummaryWithBatches,
  RolloutTargetView,
  RolloutView,
  type TargetsCursor,
} from '../views/rollout.ts';

const RolloutParams = z.object({ id: z.string().min(1).max(200) });

const targetsCursorOf = (text: string, ctx: z.RefinementCtx): TargetsCursor => {
  const cursor = parseTargetsCursor(text);
  if (cursor === null) ctx.addIssue({ code: 'custom', message: 'invalid cursor: pass next_cursor from the previous page' });
  return cursor ?? z.NEVER;
};

/**
 * A page of targets in batch then node order: of one state, of one batch (0 the first, as a target's `batch`),
 * holding the rollout (`recovery=holding`: a restore in flight or a claim that may have moved the target).
 */
const TargetsQuery = PageQuery.extend({
  cursor: z.string().min(1).transform(targetsCursorOf).optional(),
  state: z.enum(TARGET_STATES).optional(),
  batch: z.coerce.number().int().min(0).max(999_999_999).optional(),
  recovery: z.enum(['holding']).optional(),
});

/** `health`: a health gate (SPEC L3); each key takes its default when left out. */
export const NewRolloutBody = z.object({ config_version: ConfigVersionId, targets: Targets, batch_size: BatchSize, health: HealthGate.optional() }).strict().meta({ id: 'NewRollout' });

/** Rollback by scope restores recovery points (SPEC I2): one target (`node_id`), the failed ones, or every changed one. */
const RestoreBody = z.union([
  z.object({ action: z.literal('rollback'), scope: z.literal('target'), node_id: z.string().min(1).max(200) }).strict(),
  z.object({ action: z.literal('rollback'), scope: z.enum(['failed', 'all_changed']) }).strict(),
]);

const ActionBody = z.union([
  z.object({ action: z.enum(['pause', 'resume', 'cancel']) }).strict(),
  z.object({ action: z.literal('rollback'), config_version: ConfigVersionId }).strict(),
  RestoreBody,
]);

export const rolloutRoutes = [
  route({
    method: 'post',
    path: '/api/v1/rollouts',
    operationId: 'createRollout',
    tag: 'configuration',
    errors: { 403: ['approval_required'], 409: ['target_in_rollout'], 422: ['config_version_not_found', 'unknown_nodes', 'no_matching_nodes'] },
    summary: 'Roll a configuration version out to explicit nodes or a label selector, in batches (refused with approval_required when the gate is on)',
    access: 'operator',
    idempotent: true,
    body: NewRolloutBody,
    responses: { 201: RolloutView },
    async handle({ body, hub, run }) {
      const { result } = await run(
        createRollout(
          { kind: 'rollout', configVersion: body.config_version, targets: body.targets, batchSize: body.batch_size, approvalId: null, health: body.health ?? null },
          hub.config.file.control_api.approval_required,
        ),
      );
      return { status: 201, body: await readWholeRolloutView(hub, result.rolloutId), headers: { Location: `/api/v1/rollouts/${result.rolloutId}` } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/rollouts',
    operationId: 'listRollouts',
    tag: 'configuration',
    summary: 'List rollouts, newest first (state= filters), each with its targets counted by state (GET one rollout for its targets)',
    access: 'viewer',
    query: PageQuery.extend({ state: z.enum(ROLLOUT_STATES).optional() }),
    responses: { 200: listOf(RolloutSummary) },
    async handle({ query, hub }) {
      let q = hub.database.db.selectFrom('rollouts').selectAll().orderBy('created_at', 'desc').orderBy('rollout_id', 'desc').limit(query.limit + 1);
      if (query.state) q = q.where('state', '=', query.state);
      const page = newestFirstPage(await q.where(olderThan(query.cursor, 'rollout_id')).execute(), query.limit, (r) => r.rollout_id);
      return { status: 200, body: { items: await readRolloutSummaries(hub.database.db, page.items), next_cursor: page.next_cursor } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/rollouts/:id',
    operationId: 'getRollout',
    tag: 'configuration',
    errors: { 404: ['rollout_not_found'] },
    summary: 'One rollout: state, batch, and every target with its state, failure class and correlation id',
    access: 'viewer',
    params: RolloutParams,
    responses: { 200: RolloutView },
    async handle({ params, hub }) {
      return { status: 200, body: await readRolloutView(hub, params.id) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/rollouts/:id/summary',
    operationId: 'getRolloutSummary',
    tag: 'configuration',
    errors: { 404: ['rollout_not_found'] },
    summary: 'One rollout without its targets, as GET /rollouts lists it (its targets counted by state, its recovery and health gate), and its targets counted by state in each batch',
    access: 'viewer',
    params: RolloutParams,
    responses: { 200: RolloutSummaryWithBatches },
    async handle({ params, hub }) {
      return { status: 200, body: await readOneRolloutSummary(hub.database.db, params.id) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/rollouts/:id/targets',
    operationId: 'listRolloutTargets',
    tag: 'configuration',
    errors: { 404: ['rollout_not_found'] },
    summary: "A page of one rollout's targets, by batch then node id (state=, batch= and recovery=holding filter), each as GET /rollouts/{id} shows it",
    access: 'viewer',
    params: RolloutParams,
    query: TargetsQuery,
    responses: { 200: listOf(RolloutTargetView) },
    async handle({ params, query, hub }) {
      return { status: 200, body: await readRolloutTargets(hub, params.id, query) };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/rollouts/:id/actions',
    operationId: 'runRolloutAction',
    tag: 'configuration',
    errors: { 403: ['approval_required'], 404: ['rollout_not_found'], 409: ['rollout_terminal', 'invalid_transition', 'rollback_in_progress', 'nothing_to_restore', 'target_in_rollout', 'rollout_superseded'], 422: ['config_version_not_found', 'unknown_nodes', 'no_matching_nodes'] },
    summary: 'pause, resume (only from paused), cancel, rollback to an earlier config_version (a new rollout), or rollback by scope (target|failed|all_changed): restore recovery points',
    access: 'operator',
    idempotent: true,
    params: RolloutParams,
    body: ActionBody,
    responses: { 200: RolloutView, 201: RolloutView },
    async handle({ params, body, hub, run }) {
      const { result } = await run(rolloutAction(params.id, body, hub.config.file.control_api.approval_required));
      const created = result.rolloutId !== params.id;
      return {
        status: created ? 201 : 200,
        body: await readWholeRolloutView(hub, result.rolloutId),
        ...(created ? { headers: { Location: `/api/v1/rollouts/${result.rolloutId}` } } : {}),
      };
    },
  }),
];
