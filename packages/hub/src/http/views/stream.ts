import { LIVE_STATES, StreamHealth } from '@fleetplane/core';
import type { Selectable } from 'kysely';
import { z } from 'zod';
import type { IntentsTable, ObservedStreamsTable, StreamsTable } from '../../database/tables.ts';
import { literals, prepared, together } from '../../database/transaction-plan.ts';
import type { HubContext } from '../context.ts';
import { HttpError } from '../errors.ts';
import { IntentView, readIntentViews } from './intent.ts';

export const StreamView = z.object({
  stream_id: z.string(),
  generation: z.number(),
  desired_state: z.enum(['running', 'stopped']),
  spec: z.record(z.string(), z.unknown()),
  placement: z.object({ nodes: z.array(z.string()), split: z.boolean() }),
  action_id: z.string().nullable(),
  observed: z.record(
    z.string(),
    z.object({ generation: z.number(), state: z.string(), last_action_id: z.string().nullable(), health: StreamHealth.nullable(), reported_at: z.string() }),
  ),
  intents: z.array(IntentView),
  /** DELETE /streams/{id} was asked: the stream stops everywhere and is removed once every node observed it. */
  deleting: z.boolean(),
  deletion_requested_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
}).meta({ id: 'StreamView' });
export type StreamView = z.infer<typeof StreamView>;

/**
 * A stream with what its nodes report, the intents of its current generation and any older one still live. A
 * removed stream is not found, unless `removed` is 'include' (the answer of the DELETE that found it removed at once).
 */
export async function readStreamView(hub: HubContext, streamId: string, removed: 'exclude' | 'include' = 'exclude'): Promise<StreamView> {
  const db = hub.database.db;
  // One round trip, one snapshot; prepared, as every desired write's answer reads them.
  const [[row], observed, intents] = await together<[Selectable<StreamsTable>, Selectable<ObservedStreamsTable>, Selectable<IntentsTable>]>(db, [
    prepared('stream_view', db.selectFrom('streams').selectAll().where('stream_id', '=', streamId)),
    prepared('stream_view_observed', db.selectFrom('observed_streams').selectAll().where('stream_id', '=', streamId).orderBy('node_id')),
    // Two reads, each by its own index, however many generations the stream has had (intents_by_stream,
    // intents_live_by_stream): as one filter, the planner may read every generation of the stream through either.
    prepared(
      'stream_view_intents',
      db
        .selectFrom('intents')
        .selectAll()
        .where('stream_id', '=', streamId)
        .where((eb) => eb('generation', '=', eb.selectFrom('streams').select('generation').where('stream_id', '=', streamId)))
        .where('state', 'not in', literals(LIVE_STATES))
        .unionAll(db.selectFrom('intents').selectAll().where('stream_id', '=', streamId).where('state', 'in', literals(LIVE_STATES)))
        .orderBy('node_id')
        .orderBy('generation', 'desc'),
    ),
  ]);
  if (!row || (row.removed_at !== null && removed === 'exclude')) throw new HttpError(404, 'stream_not_found', `stream ${streamId} does not exist`, { stream_id: streamId });
  return {
    stream_id: row.stream_id,
    generation: row.generation,
    desired_state: row.desired_state,
    spec: row.spec,
    placement: row.placement,
    action_id: row.action_id,
    observed: Object.fromEntries(
      observed.map((o) => [o.node_id, { generation: o.generation, state: o.state, last_action_id: o.last_action_id, health: o.health, reported_at: o.reported_at.toISOString() }]),
    ),
    intents: await readIntentViews(hub, intents),
    deleting: row.deletion_requested_at !== null,
    deletion_requested_at: row.deletion_requested_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
