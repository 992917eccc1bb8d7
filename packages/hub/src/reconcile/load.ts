import { LIVE_STATES, type AttemptState, type IntentState, type Mode, type StreamState } from '@fleetplane/core';
import { sql, type Compilable, type Kysely, type Selectable } from 'kysely';
import { ADVISORY_LOCKS } from '../database/advisory-locks.ts';
import type { AttemptsTable, IntentsTable, StreamsTable, Tables } from '../database/tables.ts';
import { keyMatch, literals, prepared } from '../database/transaction-plan.ts';

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
  overridesHold: r.override_hold,
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
  placement: r.placement,
  state: r.state,
  leaseExpiresAt: r.lease_expires_at,
});

/**
 * How a command reads the global mode. `act`: it dispatches under the mode, so a change waits for it to
 * commit, and it waits for a change in flight; `change`: it changes the mode, one at a time. The settings row
 * cannot be the lock: it does not exist until an operator first sets a mode (SPEC B1, B3).
 */
export type ModeLock = 'none' | 'act' | 'change';

/** The mode an operator set (null when none), as a value of a statement that reads it besides others, without a lock. */
export const operatorModeValue = sql<string | null>`(SELECT value FROM settings WHERE key = 'reconciliation_mode')`;

/**
 * The statement reading the mode an operator set (null when none), after taking `lock`. Prepared under one name
 * per lock (`mode_act`…): a pass, a lease and a view's waits read it on every run.
 */
export function operatorModeQuery(trx: Kysely<Tables>, lock: ModeLock): Compilable<{ value: string | null }> {
  const key = sql.lit(ADVISORY_LOCKS.mode);
  const locking = { none: sql``, act: sql`pg_advisory_xact_lock_shared(${key}),`, change: sql`pg_advisory_xact_lock(${key}),` }[lock];
  const query = sql<{ value: string | null }>`SELECT ${locking} ${operatorModeValue} AS value`;
  return prepared(`mode_${lock}`, { compile: () => query.compile(trx) });
}

/** The global mode, from the row operatorModeQuery read: the last one an operator set, else the file's. */
export function modeSetting(row: { value: string | null } | undefined, configured: Mode): { mode: Mode; source: 'operator' | 'file' } {
  const value = row?.value ?? null;
  return value !== null ? { mode: value as Mode, source: 'operator' } : { mode: configured, source: 'file' };
}

/** The global mode and where it comes from: the last one an operator set, else the configuration file's. */
export async function globalModeSetting(trx: Kysely<Tables>, configured: Mode, lock: ModeLock = 'none'): Promise<{ mode: Mode; source: 'operator' | 'file' }> {
  const { rows } = await trx.executeQuery(operatorModeQuery(trx, lock).compile());
  return modeSetting(rows[0], configured);
}

export const globalMode = async (trx: Kysely<Tables>, configured: Mode, lock: ModeLock = 'none'): Promise<Mode> =>
  (await globalModeSetting(trx, configured, lock)).mode;

/**
 * The nodes with work for a pass: intents that want an attempt (pending, retrying), or attempts queued and not
 * yet handed out, which a pass offers to the node's channel.
 */
export async function nodesWithWork(trx: Kysely<Tables>): Promise<string[]> {
  const rows = await trx
    .selectFrom('intents')
    .select('node_id')
    .where('state', 'in', ['pending', 'retrying'])
    .union(trx.selectFrom('attempts').select('node_id').where('state', '=', 'queued'))
    .execute();
  return rows.map((r) => r.node_id);
}

/** Live intents in a stable order, locked: every command takes intent locks in this order, avoiding deadlocks. */
export function lockLiveIntents(trx: Kysely<Tables>) {
  return trx.selectFrom('intents').selectAll().where('state', 'in', literals(LIVE_STATES)).orderBy('intent_id').forUpdate();
}

export type NewestLifecycleIntent = Pick<
  Selectable<IntentsTable>,
  'node_id' | 'stream_id' | 'intent_id' | 'generation' | 'desired_state' | 'action_id' | 'state' | 'failure_class' | 'failure_code'
>;

/**
 * The newest lifecycle intent of each stream on these nodes, whatever its state: what a configuration intent
 * there waits for (SPEC A10). A stream the Hub removed is on no node any more (its nodes forget it, K5), so it
 * is left out. Read stream by stream from the head of intents_lifecycle_by_node, each step the first entry
 * after the last stream found: as many index probes as the node has streams, where a DISTINCT ON over the
 * index reads every generation of every stream the node ever ran. The nodes go as one array, so the text is
 * the same for one node or many.
 */
export function newestLifecycleIntents(trx: Kysely<Tables>, nodeIds: readonly string[]): Compilable<NewestLifecycleIntent> {
  const columns = sql.raw('node_id, stream_id, intent_id, generation, desired_state, action_id, state, failure_class, failure_code');
  const order = sql.raw(`ORDER BY stream_id, generation DESC LIMIT 1`);
  const query = sql<NewestLifecycleIntent>`
    WITH RECURSIVE newest AS (
      SELECT i.* FROM unnest(${[...nodeIds]}::text[]) AS n(node_id)
        CROSS JOIN LATERAL (SELECT ${columns} FROM intents
          WHERE kind = 'lifecycle' AND node_id = n.node_id ${order}) AS i
      UNION ALL
      SELECT i.* FROM newest AS p
        CROSS JOIN LATERAL (SELECT ${columns} FROM intents
          WHERE kind = 'lifecycle' AND node_id = p.node_id AND stream_id > p.stream_id ${order}) AS i)
    SELECT * FROM newest
    WHERE NOT EXISTS (SELECT FROM streams s WHERE s.stream_id = newest.stream_id AND s.removed_at IS NOT NULL)
    ORDER BY node_id, stream_id`;
  return { compile: () => query.compile(trx) };
}
