import { NO_RECOVERY, type ConfigTarget, type StreamHealth, type LiveIntent, type RolloutState, type TargetRecovery } from '@fleetplane/core';
import { sql, type Compilable, type Kysely, type Selectable } from 'kysely';
import type { JobRequest } from '../commands/pipeline.ts';
import { keyMatch, together } from '../database/transaction-plan.ts';
import type { IntentsTable, NodesTable, RolloutsTable, Tables } from '../database/tables.ts';
import { lockLiveIntents, toIntent } from '../reconcile/load.ts';
import { dispatchNodeColumns, type DispatchNodeRow } from '../reconcile/dispatch-node.ts';
import { rolloutJob } from './queues.ts';
import { newId } from '../ids.ts';

/**
 * Which of a rollout's targets a reader needs. Progression and recovery run in every pass of a rollout, after
 * nearly every report of a batch: read whole, a rollout of 10,000 targets would be read 40 times over.
 * - `all`: every target;
 * - `near`: the current batch's targets, the next's, and any with a recovery (which may hold the rollout,
 *   SPEC I5): all that progression reads;
 * - `recovering`: only the targets with a recovery, all that settling recovery reads (SPEC I3, I7-I10).
 */
export type TargetSelection = 'all' | 'near' | 'recovering';

/** A rollout with the targets selected and each target's intent; locked when the caller will change it. */
export async function loadRollout(trx: Kysely<Tables>, rolloutId: string, lock: boolean, selection: TargetSelection = 'all'): Promise<RolloutState | null> {
  const query = trx.selectFrom('rollouts').selectAll().where('rollout_id', '=', rolloutId);
  const row = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!row) return null;
  let targetsQuery = trx
    .selectFrom('rollout_targets as t')
    .leftJoin('intents as i', 'i.intent_id', 't.intent_id')
    .select(['t.node_id', 't.batch', 't.state', 't.intent_id', 'i.state as intent_state', 'i.failure_class', 'i.failure_code', 'i.failure_message', 'i.correlation_id'])
    .select(['t.recovery_phase', 't.recovery_intent_id', 't.recovery_claim', 't.recovery_claim_generation'])
    .where('t.rollout_id', '=', rolloutId);
  if (selection === 'near') {
    const near = [row.current_batch, row.current_batch + 1];
    targetsQuery = targetsQuery.where((eb) => eb.or([eb('t.batch', 'in', near), eb('t.recovery_phase', 'is not', null)]));
  }
  if (selection === 'recovering') targetsQuery = targetsQuery.where('t.recovery_phase', 'is not', null);
  const targets = await targetsQuery.orderBy('t.batch').orderBy('t.node_id').execute();
  const recovery = await loadRecovery(trx, targets);
  return {
    rolloutId,
    kind: row.kind,
    configVersion: row.config_version,
    state: row.state,
    batchSize: row.batch_size,
    batches: row.batches,
    currentBatch: row.current_batch,
    gate: row.health_gate,
    gateStatus: gateStatusOf(row),
    targets: targets.map((t) => ({
      nodeId: t.node_id,
      batch: t.batch,
      state: t.state,
      intent:
        t.intent_id !== null && t.intent_state !== null
          ? {
              intentId: t.intent_id,
              state: t.intent_state,
              failureClass: t.failure_class,
              code: t.failure_code,
              message: t.failure_message,
              correlationId: t.correlation_id ?? '',
            }
          : null,
      recovery: recovery.get(t.node_id) ?? NO_RECOVERY,
    })),
  };
}

/** The gate of the batch a rollout's row says it last watched: soaking until a time, passed or failed; null before any. */
export function gateStatusOf(row: Pick<Selectable<RolloutsTable>, 'gate_batch' | 'gate_state' | 'gate_until'>): RolloutState['gateStatus'] {
  return row.gate_batch === null || row.gate_state === null ? null : { batch: row.gate_batch, state: row.gate_state, until: row.gate_until?.toISOString() ?? null };
}

interface RecoveryColumns {
  node_id: string;
  recovery_phase: TargetRecovery['phase'];
  recovery_intent_id: string | null;
  recovery_claim: TargetRecovery['claim'];
  recovery_claim_generation: number | null;
}

/** Recovery of the targets that have any: their restore intent and the node's newest configuration intent, each with its last attempt. */
async function loadRecovery(trx: Kysely<Tables>, targets: readonly RecoveryColumns[]): Promise<Map<string, TargetRecovery>> {
  const recovering = targets.filter((t) => t.recovery_phase !== null);
  if (recovering.length === 0) return new Map();
  // Each node's newest configuration intent, from the head of its index: one probe per node, however many
  // configurations the node has had.
  const { rows: newest } = await sql<Pick<Selectable<IntentsTable>, 'intent_id' | 'node_id' | 'state' | 'generation'>>`
    SELECT i.* FROM unnest(${recovering.map((t) => t.node_id)}::text[]) AS n(node_id)
      CROSS JOIN LATERAL (SELECT intent_id, node_id, state, generation FROM intents
        WHERE kind = 'configuration' AND node_id = n.node_id ORDER BY generation DESC LIMIT 1) AS i`.execute(trx);
  const restoreIds = recovering.flatMap((t) => (t.recovery_intent_id === null ? [] : [t.recovery_intent_id]));
  const restores = restoreIds.length
    ? await trx.selectFrom('intents').select(['intent_id', 'state', 'generation']).where(sql<boolean>`intent_id = any(${restoreIds})`).execute()
    : [];
  const attempts = await trx
    .selectFrom('attempts')
    .select(['intent_id', 'state', 'code', 'message', 'mutation'])
    .distinctOn('intent_id')
    .where(sql<boolean>`intent_id = any(${[...restoreIds, ...newest.map((n) => n.intent_id)]})`)
    .orderBy('intent_id')
    .orderBy('created_at', 'desc')
    .execute();
  const attemptOf = (intentId: string) => {
    const a = attempts.find((x) => x.intent_id === intentId);
    return a ? { state: a.state, code: a.code, message: a.message, mutation: a.mutation } : null;
  };
  return new Map(
    recovering.map((t) => {
      const restore = restores.find((r) => r.intent_id === t.recovery_intent_id);
      const latest = newest.find((n) => n.node_id === t.node_id);
      const value: TargetRecovery = {
        phase: t.recovery_phase,
        claim: t.recovery_claim,
        claimGeneration: t.recovery_claim_generation,
        restore: restore ? { intentId: restore.intent_id, generation: restore.generation, state: restore.state, attempt: attemptOf(restore.intent_id) } : null,
        newest: latest ? { intentId: latest.intent_id, generation: latest.generation, state: latest.state, attempt: attemptOf(latest.intent_id) } : null,
      };
      return [t.node_id, value] as const;
    }),
  );
}

/** Whether any target of the rollout has a recovery: read without a lock, as of the caller's snapshot. */
export async function hasRecovery(trx: Kysely<Tables>, rolloutId: string): Promise<boolean> {
  const row = await trx.selectFrom('rollout_targets').select('node_id').where('rollout_id', '=', rolloutId).where('recovery_phase', 'is not', null).limit(1).executeTakeFirst();
  return row !== undefined;
}

type ConfigNodeRow = Pick<Selectable<NodesTable>, 'node_id' | 'config_generation'> & DispatchNodeRow;
type QueuedRow = { attempt_id: string; intent_id: string };
/** The rows of configTargetReads, in order. */
export type ConfigTargetRows = [ConfigNodeRow, Selectable<IntentsTable>, QueuedRow];

/**
 * The reads of the nodes a decision opens configuration intents on, to send in one script, alone or with a
 * caller's other reads (progression's): the nodes locked in node order (every command locks nodes before
 * intents), each with its configuration generation and what dispatch reads of it; then their live
 * configuration intents, locked; then their queued attempts, which a supersession withdraws.
 */
export function configTargetReads(
  trx: Kysely<Tables>,
  nodeIds: readonly string[],
): [Compilable<ConfigNodeRow>, Compilable<Selectable<IntentsTable>>, Compilable<QueuedRow>] {
  const byNode = keyMatch(nodeIds);
  return [
    trx
      .selectFrom('nodes')
      .select(['node_id', 'config_generation', ...dispatchNodeColumns()])
      .where('node_id', '=', byNode)
      .orderBy('node_id')
      .forUpdate(),
    lockLiveIntents(trx).where('kind', '=', 'configuration').where('node_id', '=', byNode),
    trx.selectFrom('attempts').select(['attempt_id', 'intent_id']).where('node_id', '=', byNode).where('state', '=', sql.lit('queued')),
  ];
}

/** Each node's configuration target, from the rows configTargetReads read. */
export function configTargetsFrom(nodes: readonly ConfigNodeRow[], intents: readonly Selectable<IntentsTable>[], queued: readonly QueuedRow[]): Map<string, ConfigTarget> {
  const live = liveIntentsFrom(intents, queued);
  return new Map(
    nodes.map((n) => [
      n.node_id,
      { nodeId: n.node_id, configGeneration: n.config_generation, live: live.filter((i) => i.nodeId === n.node_id), newIntentId: newId('in'), newAttemptId: newId('at') },
    ]),
  );
}

/** The configuration targets of these nodes, locked (configTargetReads), in one round trip. */
export async function loadConfigTargets(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<Map<string, ConfigTarget>> {
  if (nodeIds.length === 0) return new Map();
  const [nodes, intents, queued] = await together<ConfigTargetRows>(trx, configTargetReads(trx, nodeIds));
  return configTargetsFrom(nodes, intents, queued);
}

/**
 * Passes for the other rollouts whose live configuration intents on these nodes new intents supersede: a
 * restore withdrawn there, waiting for its busy node, gets its terminal at once (SPEC I9).
 */
export function supersededRollouts(targets: ReadonlyMap<string, ConfigTarget>, rolloutId: string): JobRequest[] {
  const others = [...targets.values()].flatMap((t) => t.live.flatMap((i) => (i.rolloutId !== null && i.rolloutId !== rolloutId ? [i.rolloutId] : [])));
  return [...new Set(others)].map((id) => rolloutJob(id));
}

type IntentQuery = ReturnType<typeof lockLiveIntents>;

/** Live configuration intents (locked) with their queued attempts, which a supersession withdraws. */
export async function liveConfigIntents(trx: Kysely<Tables>, where: (q: IntentQuery) => IntentQuery): Promise<LiveIntent[]> {
  const intents = await where(lockLiveIntents(trx).where('kind', '=', 'configuration')).execute();
  if (intents.length === 0) return [];
  const queued = await trx
    .selectFrom('attempts')
    .select(['attempt_id', 'intent_id'])
    .where(sql<boolean>`intent_id = any(${intents.map((i) => i.intent_id)})`)
    .where('state', '=', 'queued')
    .execute();
  return liveIntentsFrom(intents, queued);
}

/** Intents with their queued attempts (of these, those that are theirs). */
function liveIntentsFrom(intents: readonly Selectable<IntentsTable>[], queued: readonly QueuedRow[]): LiveIntent[] {
  return intents.map((r) => ({ ...toIntent(r), queuedAttempts: queued.filter((a) => a.intent_id === r.intent_id).map((a) => a.attempt_id) }));
}

/**
 * Locks the nodes a new rollout (or a rollback to a version) targets, and reads which of them are in another
 * live rollout (`busy`: one rollout per node at a time) and which left the fleet since the caller read them
 * unlocked (`retired`: no row under the lock), which the caller refuses. Every target is read under the lock,
 * not only the first batch's: a node retired before this lock, after the caller's read, would otherwise stay
 * a target of a later batch that no retirement removes, and the pass that starts it would fail for good.
 */
export async function lockTargetNodes(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<{ busy: Map<string, string>; retired: string[] }> {
  if (nodeIds.length === 0) return { busy: new Map(), retired: [] };
  // The nodes first, locked in node order (before any intent, as every command locks): a creation racing
  // this one for a node waits until it commits, then finds the node busy. One rollout per node, always.
  const locked = await trx.selectFrom('nodes').select('node_id').where(sql<boolean>`node_id = any(${[...nodeIds]})`).orderBy('node_id').forUpdate().execute();
  const present = new Set(locked.map((r) => r.node_id));
  const rows = await trx
    .selectFrom('rollout_targets as t')
    .innerJoin('rollouts as r', 'r.rollout_id', 't.rollout_id')
    .select(['t.node_id', 't.rollout_id'])
    .where('r.state', 'in', ['applying', 'paused'])
    .where(sql<boolean>`t.node_id = any(${[...nodeIds]})`)
    .execute();
  return { busy: new Map(rows.map((r) => [r.node_id, r.rollout_id])), retired: nodeIds.filter((n) => !present.has(n)) };
}

/**
 * Each of these nodes' newest configuration intent's rollout (core LatestChanges), from the head of its index:
 * the rollout that last set out to change it. Read after the nodes are locked, so no change starts meanwhile.
 */
export async function latestChanges(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<Map<string, string>> {
  if (nodeIds.length === 0) return new Map();
  const { rows } = await sql<{ node_id: string; rollout_id: string | null }>`
    SELECT i.node_id, i.rollout_id FROM unnest(${[...nodeIds]}::text[]) AS n(node_id)
      CROSS JOIN LATERAL (SELECT node_id, rollout_id FROM intents
        WHERE kind = 'configuration' AND node_id = n.node_id ORDER BY generation DESC LIMIT 1) AS i`.execute(trx);
  return new Map(rows.flatMap((r) => (r.rollout_id === null ? [] : [[r.node_id, r.rollout_id] as const])));
}

/** SPEC H9: the nodes among these on which this version was applied before (a configuration intent converged). */
export async function nodesThatApplied(trx: Kysely<Tables>, configVersion: string, nodeIds: readonly string[]): Promise<Set<string>> {
  if (nodeIds.length === 0) return new Set();
  const rows = await trx
    .selectFrom('intents')
    .select('node_id')
    .distinct()
    // Literals: what proves the partial index intents_applied covers the read, in any plan.
    .where('kind', '=', sql.lit('configuration'))
    .where('config_version', '=', configVersion)
    .where('state', '=', sql.lit('converged'))
    .where(sql<boolean>`node_id = any(${[...nodeIds]})`)
    .execute();
  return new Set(rows.map((r) => r.node_id));
}

/** A gate's target as loaded: its node's marks and the desired-running streams placed on it with what it reports (SPEC L3). */
export interface GateTargetRow {
  nodeId: string;
  lastSeenAt: Date;
  appliedVersion: string | null;
  reportedAt: Date | null;
  streams: Array<{ streamId: string; observed: { state: string; error: string | null; health: StreamHealth | null; reportedAt: Date } | null }>;
}

export async function loadGateTargets(trx: Kysely<Tables>, nodeIds: readonly string[]): Promise<GateTargetRow[]> {
  if (nodeIds.length === 0) return [];
  const nodes = await trx
    .selectFrom('nodes')
    .select(['node_id', 'last_seen_at', 'applied_config_version', 'updated_at'])
    .where(sql<boolean>`node_id = any(${[...nodeIds]})`)
    .orderBy('node_id')
    .execute();
  const streams = await sql<{ node_id: string; stream_id: string; state: string | null; error: string | null; health: StreamHealth | null; reported_at: Date | null }>`
    SELECT p.node_id, s.stream_id, o.state, o.error, o.health, o.reported_at
    FROM streams s
    CROSS JOIN LATERAL jsonb_array_elements_text(s.placement->'nodes') AS p(node_id)
    LEFT JOIN observed_streams o ON o.node_id = p.node_id AND o.stream_id = s.stream_id
    WHERE s.desired_state = 'running' AND p.node_id = any(${[...nodeIds]})
    ORDER BY p.node_id, s.stream_id`.execute(trx);
  return nodes.map((n) => ({
    nodeId: n.node_id,
    lastSeenAt: n.last_seen_at,
    appliedVersion: n.applied_config_version,
    reportedAt: n.updated_at,
    streams: streams.rows
      .filter((r) => r.node_id === n.node_id)
      .map((r) => ({ streamId: r.stream_id, observed: r.state === null || r.reported_at === null ? null : { state: r.state, error: r.error, health: r.health, reportedAt: r.reported_at } })),
  }));
}
