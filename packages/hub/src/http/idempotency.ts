import { createHash } from 'node:crypto';
import { fail } from '@fleetplane/core';
import { loadState, type Command, type IdempotencyClaim } from '../commands/pipeline.ts';
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

/** The claim for an `Idempotency-Key`, scoped to the principal, the route and the body (API.md). */
export function idempotencyClaim(key: string, principal: string, method: string, path: string, body: unknown): IdempotencyClaim {
  if (!KEY.test(key)) throw new HttpError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1-255 visible ASCII characters');
  return { principal, route: `${method} ${path}`, key, bodySha256: createHash('sha256').update(canonicalJson(body)).digest('hex') };
}

/** The first answer given for a claimed key, or null when the key is new. Another body → 409. */
export async function storedReply(db: Db, claim: IdempotencyClaim, waitMs = 5000): Promise<Reply | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('principal', '=', claim.principal)
      .where('route', '=', claim.route)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    if (!row) return null;
    if (row.body_sha256 !== claim.bodySha256) {
      throw new HttpError(409, 'idempotency_key_reused', 'this Idempotency-Key was used with another request body', { key: claim.key });
    }
    // Status 0: the first request committed and is about to store its answer.
    if (row.status !== 0) return { status: row.status, body: row.response, headers: { ...row.headers, 'Idempotent-Replayed': 'true' } };
    if (Date.now() > deadline) throw new HttpError(409, 'idempotency_key_in_flight', 'the first request with this Idempotency-Key has not answered yet');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function storeReply(db: Db, claim: IdempotencyClaim, reply: Reply): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: reply.status, response: JSON.stringify(reply.body), headers: JSON.stringify(reply.headers ?? {}) })
    .where('principal', '=', claim.principal)
    .where('route', '=', claim.route)
    .where('key', '=', claim.key)
    .execute();
}

/**
 * The command with the key claimed in its transaction. A concurrent request with the same key collides on
 * the claim, re-runs, finds it here and answers with the first request's reply instead of writing again.
 */
export function claiming<S, R>(claim: IdempotencyClaim, command: Command<S, R>): Command<{ inner: S; claimed: boolean }, R> {
  return {
    name: command.name,
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
