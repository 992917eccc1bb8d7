import { sql } from 'kysely';
import { projection, type ProjectionQuery } from './projection.ts';
import { keyMatch } from '../database/transaction-plan.ts';

/**
 * The `attempts` table: every delivery of a command, its lease and its outcome. An attempt still queued when
 * its intent stops wanting it (superseded, converged, blocked) is withdrawn (state `superseded`): it is never
 * delivered, so a restart proven by a late report is not sent again (SPEC C6).
 */
export const attemptsProjection = projection({
  name: 'attempts',
  tables: { attempts: ['attempt_id'] },
  handles: ['AttemptQueued', 'AttemptDispatched', 'AttemptSucceeded', 'AttemptFailed', 'AttemptAmbiguous', 'IntentSuperseded', 'IntentConverged', 'IntentBlocked', 'IntentHistoryPruned'],
  evolve(event, db): ProjectionQuery[] {
    const at = event.recordedAt;
    const update = (attemptId: string) => db.updateTable('attempts').where('attempt_id', '=', attemptId);
    switch (event.type) {
      case 'AttemptQueued': {
        const d = event.data;
        return [
          db.insertInto('attempts').values({
            attempt_id: d.attempt_id,
            intent_id: d.intent_id,
            node_id: d.node_id,
            stream_id: d.stream_id,
            generation: d.generation,
            operation: d.operation,
            action_id: d.action_id,
            config_version: d.config_version,
            spec: JSON.stringify(d.spec),
            placement: d.placement ? JSON.stringify(d.placement) : null,
            state: 'queued',
            correlation_id: event.metadata.correlation_id,
            created_at: at,
          }),
        ];
      }
      case 'AttemptDispatched': {
        const d = event.data;
        return [update(d.attempt_id).set({ state: 'dispatched', lease_expires_at: d.lease_expires_at, dispatched_at: at })];
      }
      case 'AttemptSucceeded': {
        const d = event.data;
        return [update(d.attempt_id).set({ state: 'succeeded', completed_at: at })];
      }
      case 'AttemptFailed': {
        const d = event.data;
        return [
          update(d.attempt_id).set({
            state: 'failed',
            failure_class: d.failure_class,
            code: d.code,
            message: d.message,
            mutation: d.mutation,
            completed_at: at,
          }),
        ];
      }
      case 'AttemptAmbiguous': {
        const d = event.data;
        return [update(d.attempt_id).set({ state: 'ambiguous', completed_at: at })];
      }
      case 'IntentSuperseded': {
        const d = event.data;
        if (d.withdrawn_attempts.length === 0) return [];
        return [db.updateTable('attempts').set({ state: 'superseded', completed_at: at }).where('attempt_id', 'in', d.withdrawn_attempts)];
      }
      case 'IntentConverged':
      case 'IntentBlocked': {
        const d = event.data;
        // The state a literal, as the plan kept for every intent needs (transaction-plan.ts, literals).
        return [db.updateTable('attempts').set({ state: 'superseded', completed_at: at }).where('intent_id', '=', d.intent_id).where('state', '=', sql.lit('queued'))];
      }
      case 'IntentHistoryPruned':
        return [
          db.deleteFrom('attempts').where(sql<boolean>`intent_id = ${keyMatch(event.data.intent_ids)}`),
          db.deleteFrom('attempts').where(sql<boolean>`attempt_id = ${keyMatch(event.data.attempt_ids)}`),
        ];
      default:
        return [];
    }
  },
});
