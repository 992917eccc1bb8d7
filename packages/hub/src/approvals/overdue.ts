import type { Kysely } from 'kysely';
import type { Tables } from '../database/tables.ts';

/**
 * Pending requests past their expiry time, in id order. Each has an expiry job, but a job can be lost: it
 * failed every retry while the database was away at its time, or the queue dropped it, unrun, after every
 * Hub was stopped for longer than it keeps jobs.
 */
export async function overdueApprovals(db: Kysely<Tables>, now: Date): Promise<string[]> {
  const rows = await db.selectFrom('config_approvals').select('approval_id').where('status', '=', 'pending').where('expires_at', '<=', now).orderBy('approval_id').execute();
  return rows.map((r) => r.approval_id);
}
