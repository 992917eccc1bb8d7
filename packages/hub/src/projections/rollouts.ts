import { ROLLOUT_EVENT_TYPES, TARGET_STATES, type RecordedFleetEvent, type TargetStateName } from '@fleetplane/core';
import { sql, type Kysely, type Updateable } from 'kysely';
import type { RolloutsTable, RolloutTargetsTable, Tables } from '../database/tables.ts';
import { keyMatch, literals } from '../database/transaction-plan.ts';
import { projection, type ProjectionQuery } from './projection.ts';

// Rows per INSERT when a rollout pins thousands of targets: well under PostgreSQL's 65,535 parameters.
const CHUNK = 2000;

/** The rollout's column counting its targets in a state. */
const countOf = (state: TargetStateName) => `targets_${state}` as const;

/**
 * Which targets a move takes, and when: named nodes (each with the intent it gets, if any, and the time of the
 * event that moves it), or every target in these states.
 */
type Moved = { nodes: ReadonlyArray<{ node_id: string; intent_id?: string; at: Date }> } | { from: readonly TargetStateName[]; at: Date };

/**
 * Moves a rollout's targets to `state` (with the other columns in `set`) and its counts with them, in one
 * statement: `prior` reads each moved target's state before the move, and each count loses the targets that
 * left its state and gains those that entered it. Exact whatever state a target was in, one already in
 * `state` included, with no read back into the Hub (evolve reads nothing).
 */
function moveTargets(db: Kysely<Tables>, rolloutId: string, state: TargetStateName, moved: Moved, set: Omit<Updateable<RolloutTargetsTable>, 'state' | 'updated_at'>): ProjectionQuery {
  const intents = 'nodes' in moved && moved.nodes.some((n) => n.intent_id !== undefined);
  return db
    .with('prior', (qb) => {
      const targets = qb.selectFrom('rollout_targets as t').select(['t.node_id', 't.state']).where('t.rollout_id', '=', rolloutId);
      if (!('nodes' in moved)) {
        return targets.select([sql<string | null>`NULL::text`.as('intent_id'), sql<Date>`${moved.at}::timestamptz`.as('at')]).where('t.state', 'in', literals(moved.from)).forUpdate();
      }
      // The nodes named twice, joined to the payload and by keyMatch: each target is found by its primary key.
      const given = sql<{ node_id: string; intent_id: string | null; at: Date }>`jsonb_to_recordset(${JSON.stringify(moved.nodes)}::jsonb)`.as<'g'>(
        sql`g(node_id text, intent_id text, at timestamptz)`,
      );
      return targets
        .innerJoin(given, (join) => join.on(sql<boolean>`g.node_id = t.node_id`))
        .select([sql<string | null>`g.intent_id`.as('intent_id'), sql<Date>`g.at`.as('at')])
        .where('t.node_id', '=', keyMatch(moved.nodes.map((n) => n.node_id)))
        .forUpdate('t');
    })
    .with('moved', (qb) =>
      qb
        .updateTable('rollout_targets')
        .from('prior')
        .set({ ...set, state: sql.lit(state), updated_at: sql`prior.at`, ...(intents ? { intent_id: sql`prior.intent_id` } : {}) })
        .where('rollout_targets.rollout_id', '=', rolloutId)
        .whereRef('rollout_targets.node_id', '=', 'prior.node_id')
        .returning(sql<TargetStateName>`prior.state`.as('was')),
    )
    .updateTable('rollouts')
    .from(sql`(SELECT ${sql.join(TARGET_STATES.map((s) => sql`count(*) FILTER (WHERE was = ${sql.lit(s)})::int AS ${sql.id(s)}`))}, count(*)::int AS n FROM moved)`.as<'c'>('c'))
    .set(Object.fromEntries(TARGET_STATES.map((s) => [countOf(s), s === state ? sql`${sql.ref(countOf(s))} + c.n - c.${sql.id(s)}` : sql`${sql.ref(countOf(s))} - c.${sql.id(s)}`])))
    .where('rollout_id', '=', rolloutId);
}

/**
 * A run of targets converging (a pass settles its batch's targets together): one move a rollout, not one a
 * target. A node named twice keeps its last event's time, as applying the events one by one would leave it.
 */
function convergedRun(events: readonly RecordedFleetEvent<'RolloutTargetConverged'>[], db: Kysely<Tables>): ProjectionQuery[] {
  const byRollout = new Map<string, Map<string, Date>>();
  for (const e of events) {
    const nodes = byRollout.get(e.data.rollout_id) ?? new Map<string, Date>();
    byRollout.set(e.data.rollout_id, nodes.set(e.data.node_id, e.recordedAt));
  }
  return [...byRollout].map(([rolloutId, nodes]) => moveTargets(db, rolloutId, 'converged', { nodes: [...nodes].map(([node_id, at]) => ({ node_id, at })) }, {}));
}

/**
 * Rollouts' counts counted from their targets: every rollout's (a rebuild's end, Projection.recount), or one's
 * (when it ends). Counted again at its end, a rollout whose targets Hubs of an earlier release moved without
 * their counts (a rolling upgrade) ends with its counts exact.
 */
function countTargets(db: Kysely<Tables>, rolloutId?: string): ProjectionQuery {
  let counted = db
    .selectFrom('rollout_targets')
    .select('rollout_id')
    .select(TARGET_STATES.map((s) => sql<number>`count(*) FILTER (WHERE state = ${sql.lit(s)})::int`.as(s)))
    .groupBy('rollout_id');
  if (rolloutId !== undefined) counted = counted.where('rollout_id', '=', rolloutId);
  return db
    .updateTable('rollouts')
    .from(counted.as('c'))
    .set(Object.fromEntries(TARGET_STATES.map((s) => [countOf(s), sql.ref(`c.${s}`)])))
    .whereRef('rollouts.rollout_id', '=', 'c.rollout_id');
}

/**
 * The `rollouts` and `rollout_targets` tables: each rollout's state and batch, its targets counted by state,
 * each target's progress.
 */
export const rolloutsProjection = projection({
  name: 'rollouts',
  tables: { rollouts: ['rollout_id'], rollout_targets: ['rollout_id', 'node_id'] },
  handles: ROLLOUT_EVENT_TYPES,
  evolveMany(events, db): ProjectionQuery[] {
    if (events[0]?.type === 'RolloutTargetConverged') return convergedRun(events as readonly RecordedFleetEvent<'RolloutTargetConverged'>[], db);
    return events.flatMap((e) => rolloutsProjection.evolve(e, db));
  },
  recount: (db) => [countTargets(db)],
  evolve(event, db): ProjectionQuery[] {
    const at = event.recordedAt;
    const rolloutId = event.data.rollout_id;
    const rollout = (set: Updateable<RolloutsTable>) =>
      db.updateTable('rollouts').set(set).where('rollout_id', '=', rolloutId);
    const target = (nodeId: string) => db.updateTable('rollout_targets').where('rollout_id', '=', rolloutId).where('node_id', '=', nodeId);
    const node = (nodeId: string) => ({ nodes: [{ node_id: nodeId, at }] });
    const move = (state: TargetStateName, moved: Moved, set: Omit<Updateable<RolloutTargetsTable>, 'state' | 'updated_at'> = {}) => moveTargets(db, rolloutId, state, moved, set);
    const endOpenTargets = () => move('cancelled', { from: ['waiting', 'applying'], at });
    switch (event.type) {
      case 'RolloutCreated': {
        const d = event.data;
        const queries: ProjectionQuery[] = [
          db.insertInto('rollouts').values({
            rollout_id: d.rollout_id,
            kind: d.kind,
            config_version: d.config_version,
            state: 'applying',
            batch_size: d.batch_size,
            batches: Math.max(...d.targets.map((t) => t.batch)) + 1,
            current_batch: 0,
            selector: d.selector ? JSON.stringify(d.selector) : null,
            created_by: event.metadata.actor,
            approval_id: d.approval_id,
            rollback_of: d.rollback_of,
            health_gate: d.health ? JSON.stringify(d.health) : null,
            correlation_id: event.metadata.correlation_id,
            created_at: at,
            updated_at: at,
            targets_waiting: d.targets.length,
          }),
        ];
        for (let i = 0; i < d.targets.length; i += CHUNK) {
          const rows = d.targets.slice(i, i + CHUNK).map((t) => ({ rollout_id: d.rollout_id, node_id: t.node_id, batch: t.batch, state: 'waiting' as const, updated_at: at }));
          queries.push(db.insertInto('rollout_targets').values(rows));
        }
        return queries;
      }
      case 'RolloutBatchStarted': {
        const d = event.data;
        return [rollout({ current_batch: d.batch, updated_at: at }), ...(d.intents.length > 0 ? [move('applying', { nodes: d.intents.map((i) => ({ ...i, at })) })] : [])];
      }
      case 'RolloutTargetConverged': {
        const d = event.data;
        return [move('converged', node(d.node_id))];
      }
      case 'RolloutTargetFailed': {
        const d = event.data;
        return [
          move('failed', node(d.node_id), { failure_class: d.failure_class, failure_code: d.code, failure_message: d.message, correlation_id: d.correlation_id }),
        ];
      }
      case 'RolloutTargetRemoved': {
        const d = event.data;
        return [move('cancelled', node(d.node_id))];
      }
      case 'RolloutPaused': {
        const d = event.data;
        return [rollout({ state: 'paused', paused_reason: d.reason, updated_at: at })];
      }
      case 'RolloutResumed': {
        const d = event.data;
        return [
          // A resumed batch is watched by its gate again, from a new soak.
          rollout({ state: 'applying', paused_reason: null, gate_state: null, gate_until: null, updated_at: at }),
          ...(d.intents.length > 0 ? [move('applying', { nodes: d.intents.map((i) => ({ ...i, at })) }, { failure_class: null, failure_code: null, failure_message: null, correlation_id: null })] : []),
        ];
      }
      case 'RolloutCancelled':
        return [rollout({ state: 'cancelled', updated_at: at }), endOpenTargets(), countTargets(db, rolloutId)];
      case 'RolloutConverged':
        return [rollout({ state: 'converged', updated_at: at }), countTargets(db, rolloutId)];
      case 'RolloutRolledBack': {
        const d = event.data;
        return [rollout({ state: 'rolled_back', rolled_back_by: d.rolled_back_by, updated_at: at }), endOpenTargets(), countTargets(db, rolloutId)];
      }
      case 'RolloutRestoreOpened': {
        const d = event.data;
        return [target(d.node_id).set({ recovery_phase: 'restoring', recovery_intent_id: d.intent_id, recovery_ref: d.recovery_ref, updated_at: at })];
      }
      case 'RolloutRecoveryCompleted': {
        const d = event.data;
        return [target(d.node_id).set({ recovery_phase: 'complete', recovery_claim: null, recovery_claim_code: null, recovery_claim_at: null, recovery_claim_generation: null, updated_at: at })];
      }
      case 'RolloutRecoveryFailed': {
        const d = event.data;
        // A refusal that deferred to an earlier moved claim leaves that claim, its code and time as they were.
        const claim = d.claim === d.class ? { recovery_claim: d.claim, recovery_claim_code: d.code, recovery_claim_at: at, recovery_claim_generation: d.generation } : {};
        return [target(d.node_id).set({ recovery_phase: 'failed', ...claim, updated_at: at })];
      }
      case 'RolloutRecoveryClaimRetired': {
        const d = event.data;
        const phase = d.evidence === 'failed' ? {} : { recovery_phase: 'complete' as const };
        return [
          target(d.node_id).set({ ...phase, recovery_claim: null, recovery_claim_code: null, recovery_claim_at: null, recovery_claim_generation: null, updated_at: at }),
        ];
      }
      case 'RolloutGateSoaking': {
        const d = event.data;
        return [rollout({ gate_batch: d.batch, gate_state: 'soaking', gate_since: at, gate_until: d.until, gate_evidence: null, gate_action: null, updated_at: at })];
      }
      case 'RolloutGatePassed':
        return [rollout({ gate_state: 'passed', gate_until: null, updated_at: at })];
      case 'RolloutGateFailed':
        return [rollout({ gate_state: 'failed', gate_until: null, gate_evidence: JSON.stringify(event.data.evidence), updated_at: at })];
      case 'RolloutHealthExecuted':
        return [rollout({ gate_action: event.data.outcome, updated_at: at })];
      default:
        return [];
    }
  },
});
