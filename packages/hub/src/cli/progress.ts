import { countTargets, targetProgress } from '@fleetplane/core';
import type { RolloutView } from '../http/views/rollout.ts';
import type { WaitingOnView } from '../http/views/waiting.ts';
import { shown } from './output.ts';

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

/**
 * A rollout as progress: one bar per batch (converged of all, cancelled named; the current batch marked `>`), then what
 * stops it: failed targets, recovery claims and restores, what each applying target waits on, and what the
 * next batch waits on (one line, however many targets it has).
 */
export function renderProgress(r: RolloutView): string {
  const lines = [
    `rollout ${r.rollout_id} → ${r.config_version}: ${rolloutState(r)}` +
      `${r.recovery !== 'none' ? `, recovery ${r.recovery}` : ''}, batch ${batchNumber(r)}/${r.batches}`,
  ];
  for (let b = 0; b < r.batches; b++) {
    const targets = r.targets.filter((t) => t.batch === b);
    const converged = targets.filter((t) => t.state === 'converged').length;
    const current = b === r.current_batch && r.state === 'applying';
    lines.push(`${current ? '>' : ' '} batch ${String(b + 1).padEnd(String(r.batches).length)} ${bar(converged, targets.length)} ${targetProgress(countTargets(targets))}`);
  }
  for (const t of r.targets.filter((x) => x.state === 'failed')) {
    lines.push(`  failed: ${t.node_id} ${[t.failure_class, t.failure_code].filter(Boolean).join(' ')}${t.failure_message ? `: ${t.failure_message}` : ''}`);
  }
  for (const t of r.targets.filter((x) => x.recovery_phase === 'restoring' || (x.recovery_claim && x.recovery_claim.class !== 'pre_mutation'))) {
    const claim = t.recovery_claim ? `claim ${t.recovery_claim.class}${t.recovery_claim.code ? ` (${t.recovery_claim.code})` : ''}` : 'restore in flight';
    lines.push(`  recovery hold: ${t.node_id} ${t.recovery_phase === 'restoring' ? 'restore in flight' : claim}`);
  }
  for (const t of r.targets.filter((x) => x.state === 'applying' && x.waiting_on)) lines.push(`  waiting: ${t.node_id} on ${waitCell(t.waiting_on)}: ${t.waiting_on!.message}`);
  const next = r.targets.find((x) => x.state === 'waiting' && x.waiting_on);
  if (next) lines.push(`  batch ${next.batch + 1} waits on ${next.waiting_on!.kind}: ${next.waiting_on!.message}`);
  lines.push(...gateLines(r));
  // Each line shown escaped: ids, failure messages and gate evidence come from nodes' reports and results.
  return lines.map(shown).join('\n') + '\n';
}

/** The health gate of the batch it last watched (SPEC L5): soaking until when, passed, or failed with its evidence. */
function gateLines(r: RolloutView): string[] {
  if (!r.gate) return [];
  const g = r.gate;
  const head = `  health gate: batch ${g.batch + 1} ${g.state}${g.state === 'soaking' && g.until ? ` until ${g.until}` : ''}${g.action ? `, health executor: ${g.action}` : ''}`;
  return [head, ...g.evidence.map((e) => `    ${e.node_id}${e.stream_id ? ` stream ${e.stream_id}` : ''} ${e.reason}: ${e.detail}${e.since ? ` (since ${e.since})` : ''}`)];
}
