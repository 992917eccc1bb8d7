import { sql } from 'kysely';
import { keyMatch } from '../database/transaction-plan.ts';
import { projection, type ProjectionQuery } from './projection.ts';

/** The `intents` table: each intent's state, retries, failure and what it waits for. */
export const intentsProjection = projection({
  name: 'intents',
  tables: { intents: ['intent_id'] },
  handles: [
    'IntentOpened',
    'IntentSuperseded',
    'IntentBlocked',
    'AttemptQueued',
    'AttemptFailed',
    'AttemptAmbiguous',
    'IntentConverged',
    'IntentReopened',
    'IntentHistoryPruned',
  ],
  evolve(event, db): ProjectionQuery[] {
    const at = event.recordedAt;
    const update = (intentId: string) => db.updateTable('intents').where('intent_id', '=', intentId);
    switch (event.type) {
      case 'IntentOpened': {
        const d = event.data;
        return [
          db.insertInto('intents').values({
            intent_id: d.intent_id,
            kind: d.kind,
            stream_id: d.stream_id,
            node_id: d.node_id,
            generation: d.generation,
            desired_state: d.desired_state,
            action_id: d.action_id,
            config_version: d.config_version,
            rollout_id: d.rollout_id,
            recovery_ref: d.recovery_ref,
            override_hold: d.override_hold ?? false,
            state: 'pending',
            correlation_id: event.metadata.correlation_id,
            created_at: at,
            updated_at: at,
          }),
        ];
      }
      case 'IntentSuperseded': {
        const d = event.data;
        return [update(d.intent_id).set({ state: 'superseded', superseded_by: d.superseded_by, next_retry_at: null, updated_at: at })];
      }
      case 'IntentBlocked': {
        const d = event.data;
        return [
          update(d.intent_id).set({
            state: 'blocked',
            failure_class: d.failure_class,
            failure_code: d.code,
            failure_message: d.message,
            next_retry_at: null,
            updated_at: at,
          }),
        ];
      }
      case 'AttemptQueued': {
        const d = event.data;
        return [update(d.intent_id).set({ state: 'converging', next_retry_at: null, updated_at: at })];
      }
      case 'AttemptFailed': {
        const d = event.data;
        if (!d.current) return [];
        return [
          update(d.intent_id).set({
            state: d.intent_state,
            retry_count: d.retry_count,
            next_retry_at: d.next_retry_at,
            failure_class: d.failure_class,
            failure_code: d.code,
            failure_message: d.message,
            updated_at: at,
          }),
        ];
      }
      case 'AttemptAmbiguous': {
        const d = event.data;
        if (!d.intent_waits) return [];
        return [
          update(d.intent_id).set({
            state: 'ambiguous',
            awaiting_boot_id: d.awaiting?.bootId ?? null,
            awaiting_seq: d.awaiting?.seq ?? null,
            updated_at: at,
          }),
        ];
      }
      case 'IntentConverged': {
        const d = event.data;
        return [
          update(d.intent_id).set({
            state: 'converged',
            next_retry_at: null,
            awaiting_boot_id: null,
            awaiting_seq: null,
            converged_at: at,
            updated_at: at,
          }),
        ];
      }
      case 'IntentReopened': {
        const d = event.data;
        return [update(d.intent_id).set({ state: 'pending', awaiting_boot_id: null, awaiting_seq: null, updated_at: at })];
      }
      case 'IntentHistoryPruned':
        // After the attempts projection has removed their attempts (projections/all.ts).
        return [db.deleteFrom('intents').where(sql<boolean>`intent_id = ${keyMatch(event.data.intent_ids)}`)];
      default:
        return [];
    }
  },
});
