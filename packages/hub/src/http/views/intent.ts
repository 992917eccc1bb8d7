import { INTENT_STATES } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { AttemptsTable, IntentsTable } from '../../database/tables.ts';
import type { HubContext } from '../context.ts';
import { readIntentWaits, WaitingOnView, waitingOnView } from './waiting.ts';

export const IntentView = z.object({
  intent_id: z.string(),
  kind: z.enum(['lifecycle', 'configuration']),
  node_id: z.string(),
  stream_id: z.string().nullable(),
  generation: z.number(),
  desired_state: z.enum(['running', 'stopped']).nullable(),
  action_id: z.string().nullable(),
  config_version: z.string().nullable(),
  rollout_id: z.string().nullable(),
  state: z.enum(INTENT_STATES),
  retry_count: z.number(),
  next_retry_at: z.string().nullable(),
  failure_class: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  superseded_by: z.string().nullable(),
  awaiting_report_after: z.object({ boot_id: z.string(), report_seq: z.number() }).nullable(),
  /** What the intent waits on now, or null when it is done (issue 22). */
  waiting_on: WaitingOnView,
  correlation_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  converged_at: z.string().nullable(),
}).meta({ id: 'IntentView' });
export type IntentView = z.infer<typeof IntentView>;

export const AttemptView = z.object({
  attempt_id: z.string(),
  intent_id: z.string(),
  node_id: z.string(),
  stream_id: z.string().nullable(),
  generation: z.number(),
  operation: z.string(),
  action_id: z.string().nullable(),
  config_version: z.string().nullable(),
  state: z.enum(['queued', 'dispatched', 'succeeded', 'failed', 'ambiguous', 'superseded']),
  lease_expires_at: z.string().nullable(),
  dispatched_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  failure_class: z.string().nullable(),
  code: z.string().nullable(),
  message: z.string().nullable(),
  mutation: z.string().nullable(),
  correlation_id: z.string(),
  created_at: z.string(),
}).meta({ id: 'AttemptView' });

const iso = (d: Date | null) => d?.toISOString() ?? null;

function intentView(r: Selectable<IntentsTable>, waitingOn: WaitingOnView): IntentView {
  return {
    intent_id: r.intent_id,
    kind: r.kind,
    node_id: r.node_id,
    stream_id: r.stream_id,
    generation: r.generation,
    desired_state: r.desired_state,
    action_id: r.action_id,
    config_version: r.config_version,
    rollout_id: r.rollout_id,
    state: r.state,
    retry_count: r.retry_count,
    next_retry_at: iso(r.next_retry_at),
    failure_class: r.failure_class,
    failure_code: r.failure_code,
    failure_message: r.failure_message,
    superseded_by: r.superseded_by,
    awaiting_report_after: r.awaiting_boot_id !== null ? { boot_id: r.awaiting_boot_id, report_seq: r.awaiting_seq ?? 0 } : null,
    waiting_on: waitingOn,
    correlation_id: r.correlation_id,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    converged_at: iso(r.converged_at),
  };
}

/** Intents as the API shows them, each with what it waits on now. */
export async function readIntentViews(hub: HubContext, rows: readonly Selectable<IntentsTable>[]): Promise<IntentView[]> {
  const waits = await readIntentWaits(hub, rows);
  return rows.map((r) => intentView(r, waitingOnView(waits.get(r.intent_id) ?? null)));
}

export function attemptView(r: Selectable<AttemptsTable>): z.infer<typeof AttemptView> {
  return {
    attempt_id: r.attempt_id,
    intent_id: r.intent_id,
    node_id: r.node_id,
    stream_id: r.stream_id,
    generation: r.generation,
    operation: r.operation,
    action_id: r.action_id,
    config_version: r.config_version,
    state: r.state,
    lease_expires_at: iso(r.lease_expires_at),
    dispatched_at: iso(r.dispatched_at),
    completed_at: iso(r.completed_at),
    failure_class: r.failure_class,
    code: r.code,
    message: r.message,
    mutation: r.mutation,
    correlation_id: r.correlation_id,
    created_at: r.created_at.toISOString(),
  };
}
