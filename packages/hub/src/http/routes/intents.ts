import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../database/tables.ts';
import { LOGICAL_METADATA } from '../../event-store/recorded.ts';
import { z } from 'zod';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { DriftItem } from '../views/drift.ts';
import { readInSnapshot } from '../snapshot-read.ts';
import { AttemptView, attemptView, IntentView, readIntentViews } from '../views/intent.ts';
import { listOf, newestFirstPage, olderThan, PageQuery } from '../views/list.ts';

export const IntentQuery = PageQuery.extend({
  state: IntentView.shape.state.optional(),
  node_id: z.string().min(1).optional(),
  stream_id: z.string().min(1).optional(),
  /** Short names for node_id and stream_id (`?node=&stream=`): a filter a client spells so is never dropped. */
  node: z.string().min(1).optional(),
  stream: z.string().min(1).optional(),
  kind: IntentView.shape.kind.optional(),
  rollout_id: z.string().min(1).optional(),
});
type IntentQuery = z.infer<typeof IntentQuery>;

/**
 * One page of GET /intents, newest first and one row more (the next page's sign): unfiltered, read from the head
 * of intents_newest, not by sorting every intent the table has kept.
 */
export function intentsPage(db: Kysely<Tables>, query: IntentQuery) {
  let q = db.selectFrom('intents').selectAll().orderBy('created_at', 'desc').orderBy('intent_id', 'desc').limit(query.limit + 1);
  if (query.state) q = q.where('state', '=', query.state);
  for (const nodeId of new Set([query.node_id, query.node])) if (nodeId) q = q.where('node_id', '=', nodeId);
  for (const streamId of new Set([query.stream_id, query.stream])) if (streamId) q = q.where('stream_id', '=', streamId);
  if (query.kind) q = q.where('kind', '=', query.kind);
  if (query.rollout_id) q = q.where('rollout_id', '=', query.rollout_id);
  return q.where(olderThan(query.cursor, 'intent_id'));
}

export const intentRoutes = [
  route({
    method: 'get',
    path: '/api/v1/intents',
    operationId: 'listIntents',
    tag: 'intents',
    summary: 'List intents, newest first, filtered by state, node and stream',
    access: 'viewer',
    query: IntentQuery,
    responses: { 200: listOf(IntentView) },
    async handle({ query, hub }) {
      const page = newestFirstPage(await intentsPage(hub.database.db, query).execute(), query.limit, (r) => r.intent_id);
      return { status: 200, body: { items: await readIntentViews(hub, page.items), next_cursor: page.next_cursor } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/intents/:id',
    operationId: 'getIntent',
    tag: 'intents',
    errors: { 404: ['intent_not_found'] },
    summary: 'One intent with its attempts and the events of its history (causation)',
    access: 'viewer',
    params: z.object({ id: z.string().min(1).max(200) }),
    responses: {
      200: IntentView.extend({
        attempts: z.array(AttemptView),
        causation: z.array(z.object({ position: z.number(), type: z.string(), recorded_at: z.string(), actor: z.string(), correlation_id: z.string() })),
      }),
    },
    async handle({ params, hub }) {
      const db = hub.database.db;
      const row = await db.selectFrom('intents').selectAll().where('intent_id', '=', params.id).executeTakeFirst();
      if (!row) throw new HttpError(404, 'intent_not_found', `intent ${params.id} does not exist`);
      const attempts = await db.selectFrom('attempts').selectAll().where('intent_id', '=', params.id).orderBy('created_at').execute();
      const history = await db
        .selectFrom('events')
        .select(['position', 'type', 'recorded_at', LOGICAL_METADATA])
        .where('stream_id', '=', `intent:${params.id}`)
        .orderBy('stream_version')
        .execute();
      return {
        status: 200,
        body: {
          ...(await readIntentViews(hub, [row]))[0]!,
          attempts: attempts.map(attemptView),
          causation: history.map((e) => ({
            position: e.position,
            type: e.type,
            recorded_at: e.recorded_at.toISOString(),
            actor: String(e.metadata.actor),
            correlation_id: String(e.metadata.correlation_id),
          })),
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/drift',
    operationId: 'listDrift',
    tag: 'intents',
    summary: 'Where observed differs from desired: generation mismatches, stale nodes and configuration drift (the SQL view `drift`)',
    access: 'viewer',
    responses: { 200: z.object({ items: z.array(DriftItem) }) },
    async handle({ hub }) {
      const items = await readInSnapshot(hub.database.db, async (read) => {
        await sql`SELECT set_config('fleetplane.now', ${hub.clock.now().toISOString()}, true),
          set_config('fleetplane.stale_after_ms', ${String(hub.config.file.reconciliation.stale_after_ms)}, true)`.execute(read.trx);
        // The time as toISOString writes it, formatted by the database: the rows are answered as read, with no Date made for each.
        return read.list<DriftItem, DriftItem>(
          sql`SELECT node_id, stream_id, kind, desired_generation, desired_state, observed_generation, observed_state,
                 to_char(last_seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_seen_at,
                 desired_config_version, applied_config_version, health
          FROM drift ORDER BY node_id, stream_id NULLS FIRST, kind`,
          (rows) => rows,
        );
      });
      return { status: 200, body: { items } };
    },
  }),
];
