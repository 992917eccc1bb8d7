import type { AttemptState, IntentState, Mode, StreamState } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import type { AttemptsTable, IntentsTable, StreamsTable, Tables } from '../database/tables.ts';

export const toIntent = (r: Selectable<IntentsTable>): IntentState => ({
  intentId: r.intent_id,
  kind: r.kind,
  streamId: r.stream_id,
  nodeId: r.node_id,
  generation: r.generation,
  desiredState: r.desired_state,
  actionId: r.action_id,
  configVersion: r.config_version,
  rolloutId: r.rollout_id,
  recoveryRef: r.recovery_ref,
  state: r.state,
  retryCount: r.retry_count,
  nextRetryAt: r.next_retry_at,
  awaiting: r.awaiting_boot_id !== null ? { bootId: r.awaiting_boot_id, seq: r.awaiting_seq ?? 0 } : null,
  openedAt: r.created_at,
});

export const toStream = (r: Selectable<StreamsTable>): StreamState => ({
  streamId: r.stream_id,
  generation: r.generation,
  desiredState: r.desired_state,
  spec: r.spec,
  placement: r.placement,
  actionId: r.action_id,
});

export const toAttempt = (r: Selectable<AttemptsTable>): AttemptState => ({
  attemptId: r.attempt_id,
  intentId: r.intent_id,
  nodeId: r.node_id,
  streamId: r.stream_id,
  configVersion: r.config_version,
  generation: r.generation,
  operation: r.operation,
  actionId: r.action_id,
  spec: r.spec,
  state: r.state,
  leaseExpiresAt: r.lease_expires_at,
});

/** The global mode and where it comes from: the last one an operator set, else the configuration file's. */
export async function globalModeSetting(trx: Kysely<Tables>, configured: Mode): Promise<{ mode: Mode; source: 'operator' | 'file' }> {
  const row = await trx.selectFrom('settings').select('value').where('key', '=', 'reconciliation_mode').executeTakeFirst();
  return row ? { mode: row.value as Mode, source: 'operator' } : { mode: configured, source: 'file' };
}

export const globalMode = async (trx: Kysely<Tables>, configured: Mode): Promise<Mode> => (await globalModeSetting(trx, configured)).mode;

/** Live intents in a stable order, locked: every command takes intent locks in this order, avoiding deadlocks. */
export function lockLiveIntents(trx: Kysely<Tables>) {
  return trx
    .selectFrom('intents')
    .selectAll()
    .where('state', 'in', ['pending', 'converging', 'retrying', 'ambiguous', 'blocked'])
    .orderBy('intent_id')
    .forUpdate();
}
