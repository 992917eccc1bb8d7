import type { HealthGate } from '@fleetplane/core';
import { commaList, labelPairs, type OptionDef, type Parsed } from './args.ts';
import { usageError } from './exit.ts';

/** The flags naming a version and its targets, shared by `rollouts create` and `approvals submit`. */
export const TARGET_OPTIONS: Record<string, OptionDef> = {
  version: { type: 'string', value: 'CV', help: 'the configuration version' },
  nodes: { type: 'string', value: 'a,b', help: 'explicit target nodes, comma-separated' },
  selector: { type: 'string', value: 'k=v,…', help: 'label selector: every pair must match; resolved once, now' },
  'batch-size': { type: 'string', value: 'N', help: 'nodes per batch, 1-256 (default 1)' },
};

/** The request body fields `config_version`, `targets` and `batch_size`. */
export function targetBody(args: Parsed): { config_version: string; targets: { nodes: string[] } | { selector: Record<string, string> }; batch_size?: number } {
  const nodes = args.string('nodes');
  const selector = args.string('selector');
  if ((nodes === undefined) === (selector === undefined)) throw usageError('give either --nodes or --selector');
  const batchSize = args.int('batch-size', 1, 256);
  return {
    config_version: args.required('version'),
    targets: nodes !== undefined ? { nodes: commaList(nodes) } : { selector: labelPairs(commaList(selector!), args.spelled('selector')) },
    ...(batchSize !== undefined ? { batch_size: batchSize } : {}),
  };
}

/** The flags of a health gate (SPEC L3), shared by `rollouts create` and `approvals submit`, which pins it. */
export const HEALTH_OPTIONS: Record<string, OptionDef> = {
  'soak-ms': { type: 'string', value: 'MS', help: 'a health gate: how long each converged batch must stay healthy' },
  'max-unhealthy': { type: 'string', value: 'N', help: 'targets a batch may have against it and still pass (default 0)' },
  'on-unhealthy': { type: 'string', value: 'pause|rollback', help: 'what a failed gate does (default pause)' },
};

/** The `health` gate of a new rollout, when --soak-ms asks for one (SPEC L3). */
export function healthBody(args: Parsed): { health?: Record<string, unknown> } {
  const soak = args.int('soak-ms', 0, 86_400_000);
  const max = args.int('max-unhealthy', 0, 10_000);
  const on = args.string('on-unhealthy');
  if (soak === undefined) {
    if (max !== undefined || on !== undefined) throw usageError('--max-unhealthy and --on-unhealthy go with --soak-ms');
    return {};
  }
  if (on !== undefined && on !== 'pause' && on !== 'rollback') throw usageError('--on-unhealthy takes pause or rollback');
  return { health: { soak_ms: soak, ...(max !== undefined && { max_unhealthy_targets: max }), ...(on !== undefined && { on_unhealthy: on }) } };
}

/** A health gate in one line, as a rollout or an approval request holds it; null when there is none. */
export const healthText = (health: HealthGate | null): string | null =>
  health ? `soak ${health.soak_ms} ms, at most ${health.max_unhealthy_targets} unhealthy, then ${health.on_unhealthy}` : null;
