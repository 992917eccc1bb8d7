import { DesiredStream } from '@fleetplane/core';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Tables } from '../../database/tables.ts';
import { deleteStream } from '../../reconcile/delete-stream.ts';
import { retiredAmong } from '../../nodes/retired-among.ts';
import { writeDesired } from '../../reconcile/write-desired.ts';
import { HttpError } from '../errors.ts';
import { prefersMinimal } from '../prefer.ts';
import { route } from '../route.ts';
import { listOf, PageQuery } from '../views/list.ts';
import { readStreamView, StreamView } from '../views/stream.ts';

const StreamParams = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-"') });

/** `If-Match: "3"` (or 3): the generation the writer last saw. */
function ifMatch(header: string | undefined): number | null {
  if (header === undefined) return null;
  const m = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  if (!m) throw new HttpError(400, 'invalid_request', 'If-Match must be a generation, e.g. "3"');
  return Number(m[1]);
}

const etag = (generation: number) => ({ ETag: `"${generation}"` });

/**
 * SPEC I13: the operator's explicit override of recovery holds. A write without it is accepted (A1) and its
 * intents on held nodes wait for the hold to be retired; with it, they go now, recorded as overriding.
 */
const OverrideHold = z.boolean().default(false).describe('send to nodes a recovery claim holds (SPEC I13)');

/**
 * The ids of `limit` live streams after `cursor`, in order: through the index of live streams (migration 0024),
 * not through every stream the fleet removed, which keep their rows for good.
 */
export async function liveStreamIds(db: Kysely<Tables>, cursor: string | undefined, limit: number): Promise<string[]> {
  let q = db.selectFrom('streams').select('stream_id').where('removed_at', 'is', null).orderBy('stream_id').limit(limit);
  if (cursor) q = q.where('stream_id', '>', cursor);
  return (await q.execute()).map((r) => r.stream_id);
}

export const streamRoutes = [
  route({
    method: 'put',
    path: '/api/v1/streams/:id',
    operationId: 'writeStream',
    tag: 'streams',
    errors: { 409: ['stream_deleting'], 412: ['generation_conflict'], 422: ['retired_nodes'] },
    summary:
      "Write a stream's desired state: a new generation, one intent per placement node (If-Match, Idempotency-Key; Prefer: return=minimal answers 204 at the commit)",
    access: 'operator',
    idempotent: true,
    requestHeaders: ['If-Match', 'Prefer'],
    responseHeaders: { 200: ['ETag'], 204: ['ETag', 'Preference-Applied'] },
    params: StreamParams,
    body: DesiredStream.extend({ override_hold: OverrideHold }),
    responses: { 200: StreamView, 204: null },
    async handle({ params, body, hub, run, headers, correlationId }) {
      const { override_hold: overrideHold, ...desired } = body;
      // An intent on a retired node would wait for a registration that never comes. Read before the write, not
      // under its locks: a retirement racing it is a retirement after it (its placement keeps the node, as drift shows).
      const retired = await retiredAmong(hub.database.db, desired.placement.nodes);
      if (retired.length > 0) {
        throw new HttpError(422, 'retired_nodes', `the placement names retired nodes (${retired.join(', ')}): a retired node never comes back; place the stream on nodes of the fleet`, { nodes: retired });
      }
      const write = { streamId: params.id, desired, actionId: null, ifMatch: ifMatch(headers['if-match']), overrideHold };
      // A minimal answer waits for nothing after the commit: a script writing many streams is not held by each
      // one's passes and view, and a node's queued pass takes every write made to it meanwhile.
      if (prefersMinimal(headers.prefer)) {
        const { result } = await run(writeDesired(write, 'job'));
        return { status: 204, body: null, headers: { ...etag(result.generation), 'Preference-Applied': 'return=minimal' } };
      }
      const { result } = await run(writeDesired(write));
      await hub.reconciler.reconcileNow(result.nodes, correlationId);
      return { status: 200, body: await readStreamView(hub, params.id), headers: etag(result.generation) };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/streams/:id/actions',
    operationId: 'runStreamAction',
    tag: 'streams',
    errors: { 404: ['stream_not_found'], 409: ['stream_not_running', 'stream_deleting'], 412: ['generation_conflict'] },
    summary: 'Run a one-shot action on a stream (restart): a new generation carrying the action id',
    access: 'operator',
    idempotent: true,
    requestHeaders: ['If-Match'],
    responseHeaders: ['ETag'],
    params: StreamParams,
    body: z.object({ action: z.literal('restart'), override_hold: OverrideHold }).strict(),
    responses: { 200: StreamView },
    async handle({ params, body, hub, run, headers, correlationId }) {
      const { result } = await run(
        writeDesired({ streamId: params.id, desired: null, actionId: `ac_${randomUUID()}`, ifMatch: ifMatch(headers['if-match']), overrideHold: body.override_hold }),
      );
      await hub.reconciler.reconcileNow(result.nodes, correlationId);
      return { status: 200, body: await readStreamView(hub, params.id), headers: etag(result.generation) };
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/streams/:id',
    operationId: 'deleteStream',
    tag: 'streams',
    errors: { 404: ['stream_not_found'], 412: ['generation_conflict'] },
    summary:
      'Delete a stream: a new generation wanting it stopped on every node; removed once every node observed the stop, deleting meanwhile (If-Match, Idempotency-Key)',
    access: 'operator',
    idempotent: true,
    requestHeaders: ['If-Match'],
    responseHeaders: ['ETag'],
    params: StreamParams,
    responses: { 202: StreamView },
    async handle({ params, hub, run, headers, correlationId }) {
      const { result } = await run(deleteStream(params.id, ifMatch(headers['if-match'])));
      await hub.reconciler.reconcileNow(result.nodes, correlationId);
      return { status: 202, body: await readStreamView(hub, params.id, 'include'), headers: etag(result.generation) };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/streams',
    operationId: 'listStreams',
    tag: 'streams',
    summary: 'List streams, ordered by id',
    access: 'viewer',
    query: PageQuery,
    responses: { 200: listOf(StreamView) },
    async handle({ query, hub }) {
      const ids = await liveStreamIds(hub.database.db, query.cursor, query.limit + 1);
      const page = ids.slice(0, query.limit);
      return {
        status: 200,
        body: { items: await Promise.all(page.map((id) => readStreamView(hub, id))), next_cursor: ids.length > query.limit ? page.at(-1)! : null },
      };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/streams/:id',
    operationId: 'getStream',
    tag: 'streams',
    errors: { 404: ['stream_not_found'] },
    summary: 'One stream: desired state, observed state per node, intents',
    access: 'viewer',
    params: StreamParams,
    responseHeaders: ['ETag'],
    responses: { 200: StreamView },
    async handle({ params, hub }) {
      const view = await readStreamView(hub, params.id);
      return { status: 200, body: view, headers: etag(view.generation) };
    },
  }),
];
