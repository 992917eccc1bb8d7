import { totalTargets, type TargetCounts } from '@fleetplane/core';
import type { RolloutSummaryWithBatches, RolloutTargetView } from '../http/views/rollout.ts';
import type { HubClient } from './hub-client.ts';
import { SHOWN, type Progress, type Some } from './progress.ts';

export const rolloutPath = (id: string) => `/rollouts/${encodeURIComponent(id)}`;

/** A page of a rollout's targets as `GET /rollouts/{id}/targets` answers it. */
export interface TargetsPage {
  items: RolloutTargetView[];
  next_cursor: string | null;
}

export type TargetsFilter = { state?: string | undefined; batch?: string | undefined; recovery?: string | undefined };

/** One page of a rollout's targets: `limit` of them in batch then node order, after `cursor`, filtered. */
export const targetsPage = async (hub: HubClient, id: string, query: TargetsFilter & { limit: number; cursor?: string | undefined }): Promise<TargetsPage> =>
  (await hub.request<TargetsPage>('GET', `${rolloutPath(id)}/targets`, { query: { ...query, limit: String(query.limit) } })).body;

/** The rollout without its targets, with them counted by batch: a few kilobytes however many it has. */
export const rolloutSummary = async (hub: HubClient, id: string): Promise<RolloutSummaryWithBatches> =>
  (await hub.request<RolloutSummaryWithBatches>('GET', `${rolloutPath(id)}/summary`)).body;

/** How many of the rollout's targets are in a state, counted from its batches (read with the targets, not kept on its row). */
export const countIn = (r: RolloutSummaryWithBatches, state: keyof TargetCounts): number => r.batch_counts.reduce((n, b) => n + b[state], 0);

/** All of the rollout's targets, counted from its batches. */
export const countAll = (r: RolloutSummaryWithBatches): number => r.batch_counts.reduce((n, b) => n + totalTargets(b), 0);

const NONE: Some = { items: [], more: 0 };

/**
 * The first SHOWN targets of a filter and how many more: `count` from the summary, or, where the summary counts
 * none, `more` says only whether a page follows.
 */
async function first(hub: HubClient, id: string, filter: TargetsFilter, count: number | null): Promise<Some> {
  const page = await targetsPage(hub, id, { ...filter, limit: SHOWN });
  if (count !== null) return { items: page.items, more: Math.max(0, count - page.items.length) };
  return { items: page.items, more: page.next_cursor === null ? 0 : null };
}

/**
 * A rollout's progress read as it is shown: its summary, then a page of at most SHOWN targets for each list the
 * progress has, only for the lists the summary says are not empty. However many targets the rollout has, the
 * Hub sends at most 3 × SHOWN + 1 of them.
 */
export async function readProgress(hub: HubClient, id: string): Promise<Progress> {
  const rollout = await rolloutSummary(hub, id);
  const failed = countIn(rollout, 'failed');
  const applying = countIn(rollout, 'applying');
  const [failedSome, holding, applyingSome, next] = await Promise.all([
    failed > 0 ? first(hub, id, { state: 'failed' }, failed) : NONE,
    rollout.recovery !== 'none' ? first(hub, id, { recovery: 'holding' }, null) : NONE,
    applying > 0 ? first(hub, id, { state: 'applying' }, applying) : NONE,
    countIn(rollout, 'waiting') > 0 ? targetsPage(hub, id, { state: 'waiting', limit: 1 }).then((p) => p.items[0] ?? null) : null,
  ]);
  return { rollout, failed: failedSome, holding, applying: applyingSome, next };
}
