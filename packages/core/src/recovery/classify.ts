/** What a failed restore may have done to its target (SPEC I3). */
export type ClaimClass = 'pre_mutation' | 'post_mutation' | 'unknown';

/** Codes that prove a restore moved nothing. */
export const PRE_MUTATION_CODES: readonly string[] = ['restore_not_sent', 'no_recovery_point', 'recovery_point_mismatch', 'target_not_found'];

/**
 * Codes that mean the restore may have moved the target: sent but its answer lost (`lease_expired`), a
 * success that does not echo the requested generation (`unconfirmed`), a write that failed and whose revert
 * failed too (`restore_write_failed`, `revert_failed`).
 */
export const POST_MUTATION_CODES: readonly string[] = ['lease_expired', 'unconfirmed', 'restore_write_failed', 'revert_failed'];

/**
 * Codes of a restore that did not run and is tried again: the node was busy with another operation on the
 * target (`busy`, SPEC I8), or the Hub's push never reached it (`node_unreachable`).
 */
export const NOT_RUN_CODES: readonly string[] = ['busy', 'node_unreachable'];

/**
 * SPEC I3: the node's own verdict wins; else only codes proving nothing moved are pre-mutation, known
 * moving codes are post-mutation, and anything else is unknown (and holds). A restore that did not run
 * settles nothing, whatever verdict comes with it: it is still in flight (I8).
 */
export function classifyRestoreFailure(failure: { code: string | null; mutation: string | null }): ClaimClass | 'not_run' {
  if (failure.code !== null && NOT_RUN_CODES.includes(failure.code)) return 'not_run';
  if (failure.mutation === 'pre_mutation' || failure.mutation === 'post_mutation') return failure.mutation;
  if (failure.code !== null && PRE_MUTATION_CODES.includes(failure.code)) return 'pre_mutation';
  if (failure.code !== null && POST_MUTATION_CODES.includes(failure.code)) return 'post_mutation';
  return 'unknown';
}

/** A claim that may have moved its target holds automated work (I5); a pre-mutation one never does (I4). */
export const holds = (claim: ClaimClass | null): boolean => claim === 'post_mutation' || claim === 'unknown';
