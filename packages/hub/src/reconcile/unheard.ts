import { unheardSince } from '@fleetplane/core';
import { sql } from 'kysely';

/**
 * The time the database was found restored (migration 0029), as a column of a read of nodes: a subquery of the
 * one-row table in the same statement, so that a pass, a lease or a report reads it without a round trip.
 */
export const restoredAtColumn = () => sql<Date | null>`(SELECT restored_at FROM database_identity)`.as('restored_at');

/** The node's row, read with restoredAtColumn: the restore's time while it has not reported since (core reconcile/unheard.ts). */
export const nodeUnheard = (row: { last_report_at: Date | null; restored_at: Date | null } | undefined): Date | null =>
  row ? unheardSince(row.restored_at, row.last_report_at) : null;
