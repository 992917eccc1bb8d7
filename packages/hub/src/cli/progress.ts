import { countTargets, holds, targetProgress, totalTargets } from '@fleetplane/core';
import type { RolloutSummary, RolloutSummaryWithBatches, RolloutTargetView, RolloutView } from '../http/views/rollout.ts';
import type { WaitingOnView } from '../http/views/waiting.ts';
import { shown, table } from './output.ts';

const WIDTH = 20;

const bar = (done: number, total: number) => {
  const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}]`;
};

/**
 * The current batch as people count (the API's `current_batch` and a target's `batch` are indexes from 0): the
 * CLI and the console both say "batch 1 of 3" for the first.
 */
export const batchNumber = (r: Pick<RolloutView, 'current_batch' | 'batches'>): number => Math.min(r.current_batch + 1, r.batches);

/** A wait in a table cell: its kind and the blocking thing's id (`stream_blocked ingest`). */
export const waitCell = (w: WaitingOnView): string | null => (w ? [w.kind, w.stream_id ?? w.attempt_id ?? w.node_id].filter(Boolean).join(' ') : null);

/** A rollout's state, with why while it is paused: a rollout keeps the reason of its last pause after it ended. */
export const rolloutState = (r: Pick<RolloutView, 'state' | 'paused_reason'>): string =>
  r.state === 'paused' && r.paused_reason ? `${r.state} (${r.paused_reason})` : r.state;

/** At most this many targets of each list a rollout's progress (or table) shows: the rest are counted, with the command that lists them. */
export const SHOWN = 20;

/** The first SHOWN targets of a list, and how many more it has (null: some, not counted). */
export interface Some {
  items: RolloutTargetView[];
  more: number | null;
}

/**
 * What a rollout's progress shows: the rollout with its targets counted by batch, the failed targets, those
 * holding the rollout (a restore in flight or a claim, SPEC I5 I6), the applying ones (with what they wait on)
 * and the first waiting one: read from the Hub a page of each (rollout-progress.ts), or taken from a whole rollout.
 */
export interface Progress {
  rollout: RolloutSummaryWithBatches;
  failed: Some;
  holding: Some;
  applying: Some;
  next: RolloutTargetView | null;
}

/** A target that holds its rollout, as `GET /rollouts/{id}/targets?recovery=holding` selects it. */
const holdsRollout = (t: RolloutTargetView): boolean =>
  t.state !== 'cancelled' && (t.recovery_phase === 'restoring' || holds(t.recovery_claim?.class ?? null));

/** The first SHOWN of these targets, and how many more. */
export const some = (targets: readonly RolloutTargetView[]): Some => ({ items: targets.slice(0, SHOWN), more: Math.max(0, targets.length - SHOWN) });

/** The progress of a whole rollout in hand (an action's answer): what the Hub's pages would give. */
export function progressOf(r: RolloutView): Progress {
  const { targets, ...summary } = r;
  const inState = (state: RolloutTargetView['state']) => targets.filter((t) => t.state === state);
  return {
    rollout: { ...summary, batch_counts: Array.from({ length: r.batches }, (_, b) => countTargets(targets.filter((t) => t.batch === b))) },
    failed: some(inState('failed')),
    holding: some(targets.filter(holdsRollout)),
    applying: some(inState('applying')),
    next: targets.find((t) => t.state === 'waiting') ?? null,
  };
}

/** The line that counts what a list left out, with the command that lists it. */
const moreLine = (r: RolloutSummary, more: number | null, what: string, filter: string): string[] =>
  more === 0 ? [] : [`  … and ${more === null ? 'more' : `${more} more`} ${what} (fleetplane rollouts targets ${r.rollout_id} ${filter})`];

/**
 * A rollout as progress: one bar per batch (converged of all, cancelled named; the current batch marked `>`), then what
 * stops it: failed targets, recovery claims and restores, what each applying target waits on, and what the
 * next batch waits on (one line, however many targets it has); at most SHOWN lines of each, then how many more.
 */
export function renderProgress(p: Progress): string {
  const r = p.rollout;
  const lines = [
    `rollout ${r.rollout_id} → ${r.config_version}: ${rolloutState(r)}` +
      `${r.recovery !== 'none' ? `, recovery ${r.recovery}` : ''}, batch ${batchNumber(r)}/${r.batches}`,
  ];
  r.batch_counts.forEach((counts, b) => {
    const current = b === r.current_batch && r.state === 'applying';
    lines.push(`${current ? '>' : ' '} batch ${String(b + 1).padEnd(String(r.batches).length)} ${bar(counts.converged, totalTargets(counts))} ${targetProgress(counts)}`);
  });
  for (const t of p.failed.items) {
    lines.push(`  failed: ${t.node_id} ${[t.failure_class, t.failure_code].filter(Boolean).join(' ')}${t.failure_message ? `: ${t.failure_message}` : ''}`);
  }
  lines.push(...moreLine(r, p.failed.more, 'failed', '--state failed'));
  for (const t of p.holding.items) {
    const claim = t.recovery_claim ? `claim ${t.recovery_claim.class}${t.recovery_claim.code ? ` (${t.recovery_claim.code})` : ''}` : 'restore in flight';
    lines.push(`  recovery hold: ${t.node_id} ${t.recovery_phase === 'restoring' ? 'restore in flight' : claim}`);
  }
  lines.push(...moreLine(r, p.holding.more, 'holding the rollout', '--recovery holding'));
  for (const t of p.applying.items.filter((x) => x.waiting_on)) lines.push(`  waiting: ${t.node_id} on ${waitCell(t.waiting_on)}: ${t.waiting_on!.message}`);
  lines.push(...moreLine(r, p.applying.more, 'applying', '--state applying'));
  if (p.next?.waiting_on) lines.push(`  batch ${p.next.batch + 1} waits on ${p.next.waiting_on.kind}: ${p.next.waiting_on.message}`);
  lines.push(...gateLines(r));
  // Each line shown escaped: ids, failure messages and gate evidence come from nodes' reports and results.
  return lines.map(shown).join('\n') + '\n';
}

/** Targets as a table: what each waits on, its applied version, failure and recovery; batches counted from 1. */
export const targetTable = (targets: readonly RolloutTargetView[]): string =>
  table(
    ['node', 'batch', 'state', 'intent', 'waiting on', 'applied', 'failure', 'recovery'],
    targets.map((t) => [
      t.node_id,
      t.batch + 1,
      t.state,
      t.intent_state,
      waitCell(t.waiting_on),
      t.applied_config_version,
      [t.failure_class, t.failure_code].filter(Boolean).join(' '),
      t.recovery_claim ? `${t.recovery_phase ?? ''} ${t.recovery_claim.class}`.trim() : t.recovery_phase,
    ]),
  );

/** The health gate of the batch it last watched (SPEC L5): soaking until when, passed, or failed with its evidence. */
function gateLines(r: RolloutSummary): string[] {
  if (!r.gate) return [];
  const g = r.gate;
  const head = `  health gate: batch ${g.batch + 1} ${g.state}${g.state === 'soaking' && g.until ? ` until ${g.until}` : ''}${g.action ? `, health executor: ${g.action}` : ''}`;
  return [head, ...g.evidence.map((e) => `    ${e.node_id}${e.stream_id ? ` stream ${e.stream_id}` : ''} ${e.reason}: ${e.detail}${e.since ? ` (since ${e.since})` : ''}`)];
}
