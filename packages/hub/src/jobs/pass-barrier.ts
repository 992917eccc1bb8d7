import { sql, type Compilable, type Kysely } from 'kysely';

/**
 * A keyed pass that must see every command that asked for it. A `stately` queue keeps one queued job per
 * key: a command that asks for a pass while one is queued adds nothing, and that queued pass may start
 * before the command commits, read the state without it and leave nothing queued behind it (a rollout whose
 * last target converged meanwhile would wait forever). So a command asking for such a pass holds the key's
 * barrier, shared, from before its job insert until it commits; the worker passes the barrier (takes it
 * exclusively, and lets go at once) before the pass. A command whose insert found the pass queued is then
 * either committed when the pass reads, or its own insert comes after the pass started and queues another.
 * The worker holds nothing while it waits, so the barrier adds no deadlock.
 */
const key = (queue: string, passKey: string) => sql`hashtext(${queue}), hashtext(${passKey})`;

/** The statement a command runs in its transaction, before its job insert. */
export function holdPassBarrier(db: Kysely<any>, queue: string, passKey: string): Compilable {
  const statement = sql`SELECT pg_advisory_xact_lock_shared(${key(queue, passKey)})`;
  return { compile: () => statement.compile(db) };
}

/** Waits until every transaction holding the barrier has ended (run outside a transaction: the lock ends with the statement). */
export async function passBarrier(db: Kysely<any>, queue: string, passKey: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${key(queue, passKey)})`.execute(db);
}
