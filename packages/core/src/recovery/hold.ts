import type { Operation } from '../reconcile/intent.ts';
import type { RolloutKind } from '../rollouts/events.ts';
import { holds, type ClaimClass } from './classify.ts';

/** A claim that may have moved a node's configuration, standing on one of its rollout targets. */
export interface NodeHold {
  rolloutId: string;
  claim: ClaimClass;
}

/** A rollout target as a hold is read from it. */
export interface HoldingTarget {
  rolloutId: string;
  nodeId: string;
  /** A cancelled target holds nothing (I6). */
  state: string;
  claim: ClaimClass | null;
}

/**
 * SPEC I12: the node is held while a live target of any rollout on it keeps a claim that may have moved it
 * (`post_mutation`, `unknown`). The first such claim by rollout id names the hold; null when none stands.
 */
export function nodeHold(targets: readonly HoldingTarget[], nodeId: string): NodeHold | null {
  const standing = targets
    .filter((t) => t.nodeId === nodeId && t.state !== 'cancelled' && holds(t.claim))
    .sort((a, b) => (a.rolloutId < b.rolloutId ? -1 : 1));
  return standing[0] ? { rolloutId: standing[0].rolloutId, claim: standing[0].claim! } : null;
}

/** Whether a node is held: no automated actor (reconciler, health executor) acts on it on its own (I12). */
export const isNodeHeld = (targets: readonly HoldingTarget[], nodeId: string): boolean => nodeHold(targets, nodeId) !== null;

/**
 * SPEC I12, I13: what still goes to a held node is an operator's explicit action: a desired write made with
 * `override_hold`, or a restore (only ever opened by an operator's rollback, I2, and retried only when it
 * did not run, I8). Everything else waits, and runs as soon as the hold is retired (I11).
 */
export function heldBack(work: { overridesHold: boolean; operation: Operation }, hold: NodeHold | null): boolean {
  return hold !== null && !work.overridesHold && work.operation !== 'restore';
}

/**
 * SPEC I13: a single-node apply and a rollback (G4, G6) are an operator's explicit action on the nodes they
 * name, so their intents go through a hold, as a write with `override_hold` does; a rollout's batches do not.
 */
export const overridesHold = (kind: RolloutKind): boolean => kind !== 'rollout';
