import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, logSettled, type TestDatabase } from '../../../../test/support/database.ts';
import { event } from '../../../../test/support/events.ts';
import { allFixtures, type StoredEvent } from '../../../../test/support/fixtures.ts';
import { appendToStream, appendToStreams } from '../event-store/append.ts';
import { readAll, START } from '../event-store/read-all.ts';
import { listSegments } from '../event-store/segments.ts';
import { verifyChain } from '../event-store/verify-chain.ts';
import { allProjections } from '../projections/all.ts';
import { dropSchema, rebuild } from '../projections/rebuild.ts';
import { loadMigrations, migrate } from './migrate.ts';

// Issue 19: a database of an older Hub moves its log into the partitioned table in place (migration 10).
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase({ empty: true });
});
afterAll(() => t.drop());

/** Events of every kind of metadata the log holds, for streams of operators, workers and agents. */
function generated(): StoredEvent[] {
  const metadata = [
    { actor: 'edge-7-agent', role: 'agent', correlation_id: randomUUID(), causation_id: null, source: 'agent' },
    { actor: 'alice', role: 'admin', correlation_id: 'ticket-4711', causation_id: null, source: 'api' },
    { actor: 'bob', role: 'operator', correlation_id: randomUUID().toUpperCase(), causation_id: randomUUID(), source: 'cli' },
    { actor: 'system', role: 'system', correlation_id: randomUUID(), causation_id: 'job-1', source: 'worker' },
    { actor: 'carol', role: 'agent', correlation_id: randomUUID(), causation_id: null, source: 'api', extra: { note: 'kept' } },
  ];
  return Array.from({ length: 200 }, (_, i) => ({
    stream_id: `stream:s-${i % 20}`,
    type: i % 3 === 0 ? 'Noted' : 'Happened',
    schema_version: 1,
    event_id: randomUUID(),
    data: { i, nested: { list: [1, 'two', null, { deep: true }] }, text: 'ünïcode ✓ \u0001' },
    metadata: metadata[i % metadata.length]!,
    recorded_at: new Date(Date.UTC(2026, 5, 1, 10, 0, 0, i * 1234)).toISOString(),
  }));
}

const LOGICAL = sql`position, tx_id::text AS tx_id, stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at, prev_hash, hash`;

test('issue 19: a log written before migration 10 reads the same after it, every chain verifies, and appends continue the chains', async () => {
  await migrate(t.pool, loadMigrations().filter((m) => m.version <= 9));
  // Written as the Hub of migration 9 wrote them: through its append_events, a stream at a time, in transactions of several.
  const events = [...allFixtures(), ...generated()];
  for (let k = 0; k < events.length; k += 7) {
    await t.db.transaction().execute(async (trx) => {
      for (const e of events.slice(k, k + 7)) {
        await sql`SELECT * FROM append_events(${e.stream_id}, NULL, ${JSON.stringify([e])}::jsonb)`.execute(trx);
      }
    });
  }
  // Rows written by hand: metadata without the default keys, and a hash that is not one (kept, and reported).
  await sql`INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata, recorded_at, prev_hash, hash)
    SELECT 'hand:1', 1, id, 'Plain', '{}', '{"actor": "dba"}', at, NULL, event_hash(NULL, 'hand:1', 1, id, 'Plain', 1, '{}', '{"actor": "dba"}', at)
    FROM (SELECT gen_random_uuid() AS id, now() AS at) x`.execute(t.db);
  await sql`INSERT INTO events (stream_id, stream_version, event_id, type, data, metadata, recorded_at, hash)
    VALUES ('hand:2', 1, gen_random_uuid(), 'Plain', '{}', '{}', now(), 'not a hash')`.execute(t.db);
  const before = (await sql<Record<string, unknown>>`SELECT ${LOGICAL} FROM events ORDER BY position`.execute(t.db)).rows;
  const last = Number(before.at(-1)!.position);

  // Migration 10 and those after it.
  expect(await migrate(t.pool)).toEqual(loadMigrations().map((m) => m.version).filter((v) => v >= 10));

  // Every event, as the API and the hash see it, is what it was; so is each chain link. (The hash that was not
  // one is kept as its bytes, shown in hex.)
  const after = (await sql<Record<string, unknown>>`SELECT ${LOGICAL} FROM event_chain ORDER BY position`.execute(t.db)).rows;
  expect(after).toEqual(before.map((r) => (r.hash === 'not a hash' ? { ...r, hash: Buffer.from('not a hash').toString('hex') } : r)));
  const hashOf = (position: number) => before.find((r) => Number(r.position) === position)!.hash;
  const { rows: stored } = await sql<{ position: number; hash: Buffer }>`SELECT position, hash FROM events WHERE stream_id <> 'hand:2'`.execute(t.db);
  for (const r of stored) expect(r.hash.toString('hex')).toBe(hashOf(r.position));
  expect(await verifyChain(t.db)).toEqual([{ stream_id: 'hand:2', stream_version: 1, position: last, problem: 'hash_mismatch' }]);
  await logSettled(t.db);
  expect((await readAll(t.db, START, 10_000)).events.map((e) => e.position)).toEqual(before.map((r) => Number(r.position)));

  // The log is in segments from the first position on, with two empty ones ahead.
  expect((await listSegments(t.db)).map(({ from, to, ahead }) => ({ from, to, ahead }))).toEqual([
    { from: 1, to: last + 1, ahead: false },
    { from: last + 1, to: last + 100_001, ahead: true },
    { from: last + 100_001, to: last + 200_001, ahead: true },
  ]);

  // Each stream's head is its last event; appends of either kind chain on it.
  const { rows: heads } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM stream_heads h JOIN event_history e ON e.stream_id = h.stream_id AND e.stream_version = h.stream_version AND encode(h.hash, 'hex') = e.hash`.execute(t.db);
  expect(Number(heads[0]!.n)).toBe(new Set(before.map((r) => r.stream_id)).size);
  const s1 = before.filter((r) => r.stream_id === 'stream:s-1').length;
  expect(await appendToStream(t.db, 'stream:s-1', s1, [event()])).toMatchObject({ ok: true, events: [{ streamVersion: s1 + 1 }] });
  const { eventId: _new, ...fresh } = event();
  expect(await appendToStreams(t.db, [{ streamId: 'node:edge-1', expected: 'any', events: [fresh] }, { streamId: 'stream:s-2', expected: 'any', events: [fresh] }])).toMatchObject([
    { ok: true, events: [{ streamVersion: before.filter((r) => r.stream_id === 'node:edge-1').length + 1 }] },
    { ok: true, events: [{ streamVersion: before.filter((r) => r.stream_id === 'stream:s-2').length + 1 }] },
  ]);
  // A known id is still a replay.
  const replayed = events[0]!;
  expect(await appendToStream(t.db, replayed.stream_id, 0, [{ eventId: replayed.event_id, type: replayed.type, schemaVersion: 1, data: replayed.data, metadata: replayed.metadata as never, recordedAt: new Date(replayed.recorded_at) }])).toMatchObject({
    ok: true,
    duplicate: true,
  });
  expect(await verifyChain(t.db)).toEqual([{ stream_id: 'hand:2', stream_version: 1, position: last, problem: 'hash_mismatch' }]);

  // The projections rebuild from the migrated log, old schema versions upcast.
  const rebuilt = await rebuild(t.db, allProjections);
  expect(rebuilt.events).toBe(before.length + 3);
  await dropSchema(t.db, rebuilt.schema);
});
