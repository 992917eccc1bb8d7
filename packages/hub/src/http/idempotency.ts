import { createHash } from 'node:crypto';
import { fail } from '@fleetplane/core';
import { loadState, type Command, type IdempotencyClaim } from '../commands/pipeline.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../database/connect.ts';
import { HttpError } from './errors.ts';
import type { Reply } from './route.ts';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted: equal bodies hash equally however their keys were ordered. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The claim for an `Idempotency-Key`, scoped to the principal, the route and the body (docs/http-api.md, "Idempotency-Key"). */
export function idempotencyClaim(key: string, principal: string, method: string, path: string, body: unknown): IdempotencyClaim {
  if (!KEY.test(key)) throw new HttpError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 visible ASCII characters');
  return { principal, route: `${method} ${path}`, key, bodySha256: createHash('sha256').update(canonicalJson(body)).digest('hex') };
}

/** How long after its commit a claim waits for its first request to store the answer: it does so right away. */
export const ANSWER_WINDOW_MS = 5000;

/**
 * What a key holds: nothing (a new key), the first answer, or the result of a command that committed but
 * whose answer was never stored (its Hub stopped, or the route failed, after the commit).
 */
export type StoredClaim = { kind: 'new' } | { kind: 'answered'; reply: Reply } | { kind: 'unanswered'; result: unknown };

const replayOf = (row: { status: number; response: unknown; headers: Record<string, string> }): Reply => ({
  status: row.status,
  body: row.response,
  headers: { ...(row.headers as Reply['headers']), 'Idempotent-Replayed': 'true' },
});

const claimRow = (db: Db, claim: IdempotencyClaim) =>
  db
    .selectFrom('idempotency_keys')
    .select(['body_sha256', 'status', 'response', 'headers', 'result', 'created_at'])
    .where('principal', '=', claim.principal)
    .where('route', '=', claim.route)
    .where('key', '=', claim.key);

/**
 * What a key holds. Another body → 409. A claim not yet answered is waited for until its answer window
 * (by the Hub's clock) has passed; then its result is returned to rebuild the answer. A claim made before
 * results were stored has none: after `waitMs` it answers 409 `idempotency_key_in_flight`.
 */
export async function storedReply(db: Db, claim: IdempotencyClaim, clock: Clock, waitMs = ANSWER_WINDOW_MS): Promise<StoredClaim> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await claimRow(db, claim).executeTakeFirst();
    if (!row) return { kind: 'new' };
    if (row.body_sha256 !== claim.bodySha256) {
      throw new HttpError(409, 'idempotency_key_reused', 'this Idempotency-Key was used with another request body', { key: claim.key });
    }
    if (row.status !== 0) return { kind: 'answered', reply: replayOf(row) };
    if (row.result !== null && clock.now().getTime() - row.created_at.getTime() >= ANSWER_WINDOW_MS) {
      return { kind: 'unanswered', result: row.result };
    }
    if (Date.now() > deadline) throw new HttpError(409, 'idempotency_key_in_flight', 'the first request with this Idempotency-Key has not answered yet');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Stores the answer to a claimed key unless one is stored already; returns the answer stored, to send. */
export async function storeReply(db: Db, claim: IdempotencyClaim, reply: Reply): Promise<Reply> {
  const stored = await db
    .updateTable('idempotency_keys')
    .set({ status: reply.status, response: JSON.stringify(reply.body), headers: JSON.stringify(reply.headers ?? {}) })
    .where('principal', '=', claim.principal)
    .where('route', '=', claim.route)
    .where('key', '=', claim.key)
    .where('status', '=', 0)
    .returning('key')
    .executeTakeFirst();
  if (stored) return reply;
  // A retry rebuilt and stored the answer first (this request outlived its answer window): send that one.
  return replayOf(await claimRow(db, claim).executeTakeFirstOrThrow());
}

/** Forgets the keys claimed before `before`. A retry with a forgotten key is a new request. */
export async function forgetKeys(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}

/**
 * The command with the key claimed in its transaction. A concurrent request with the same key collides on
 * the claim, re-runs, finds it here and answers with the first request's reply instead of writing again.
 */
export function claiming<S, R>(claim: IdempotencyClaim, command: Command<S, R>): Command<{ inner: S; claimed: boolean }, R> {
  return {
    name: command.name,
    // A shared transaction still locks the command's node before anything else (commands/transaction.ts).
    ...(command.locksNode !== undefined && { locksNode: command.locksNode }),
    async load(trx, now) {
      const claimed = await trx
        .selectFrom('idempotency_keys')
        .select('key')
        .where('principal', '=', claim.principal)
        .where('route', '=', claim.route)
        .where('key', '=', claim.key)
        .executeTakeFirst();
      return { inner: claimed ? (undefined as S) : await loadState(command, trx, now), claimed: !!claimed };
    },
    decide({ inner, claimed }, now) {
      if (claimed) return fail('idempotent_replay', 'answered by the first request with this key');
      const decided = command.decide(inner, now);
      return decided.ok ? { ok: true, value: { ...decided.value, idempotencyKey: claim } } : decided;
    },
  };
}
