import { sql, type Kysely, type RawBuilder } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { event } from '../../../../test/support/events.ts';
import type { Tables } from '../database/tables.ts';
import { appendToStream } from './append.ts';
import { verifyChain } from './verify-chain.ts';

let t: TestDatabase;
beforeAll(async () => {
  // Edits and deletes events on purpose.
  t = await createTestDatabase({ tampered: true });
});
afterAll(() => t.drop());


/** Appends `n` events to a new stream; returns their positions by stream version (index 0 is version 1). */
async function stream(streamId: string, n: number, db: Kysely<Tables> = t.db): Promise<number[]> {
  const r = await appendToStream(db, streamId, 0, Array.from({ length: n }, (_, i) => event('Happened', { i })));
  if (!r.ok) throw new Error(`append to ${streamId} failed: ${JSON.stringify(r.error)}`);
  return r.events.map((e) => e.position);
}

/** Edits history the way only a superuser can: with the append-only trigger switched off for one transaction. */
async function tamper(statement: RawBuilder<unknown>, db: Kysely<Tables> = t.db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE events DISABLE TRIGGER events_append_only`.execute(trx);
    await statement.execute(trx);
    await sql`ALTER TABLE events ENABLE TRIGGER events_append_only`.execute(trx);
  });
}

const problem = (stream_id: string, stream_version: number, position: number, kind: string) => ({
  stream_id,
  stream_version,
  position,
  problem: kind,
});

test('J2 an untouched log verifies clean, as a whole and stream by stream', async () => {
  // A database of its own: the other tests of this file tamper with theirs.
  const untouched = await createTestDatabase();
  try {
    await stream('clean-1', 1, untouched.db);
    await stream('clean-2', 5, untouched.db);
    await appendToStream(untouched.db, 'clean-2', 5, [event('Later', { nested: { a: [1, 2, { b: null }] }, text: 'ünïcode ✓' })]);
    await untouched.db.transaction().execute(async (trx) => {
      await appendToStream(trx, 'clean-3', 0, [event(), event()]);
      await appendToStream(trx, 'clean-1', 1, [event()]);
    });

    expect(await verifyChain(untouched.db)).toEqual([]);
    for (const id of ['clean-1', 'clean-2', 'clean-3', 'no-such-stream']) expect(await verifyChain(untouched.db, id)).toEqual([]);
  } finally {
    await untouched.drop();
  }
});

test('J2 editing an event\'s data is a hash_mismatch on that event only', async () => {
  const positions = await stream('edit-data', 4);
  await tamper(sql`UPDATE events SET data = '{"i": 99}' WHERE stream_id = 'edit-data' AND stream_version = 2`);

  expect(await verifyChain(t.db, 'edit-data')).toEqual([problem('edit-data', 2, positions[1]!, 'hash_mismatch')]);
  expect((await verifyChain(t.db)).filter((p) => p.stream_id === 'edit-data')).toEqual([
    problem('edit-data', 2, positions[1]!, 'hash_mismatch'),
  ]);
});

test('J2 editing any other hashed field is a hash_mismatch too', async () => {
  const edits: Record<string, RawBuilder<unknown>> = {
    type: sql`type = 'Edited'`,
    metadata: sql`metadata = jsonb_set(metadata, '{actor}', '"mallory"')`,
    recorded_at: sql`recorded_at = recorded_at + interval '1 microsecond'`,
    schema_version: sql`schema_version = 2`,
    event_id: sql`event_id = gen_random_uuid()`,
  };
  for (const [field, assignment] of Object.entries(edits)) {
    const id = `edit-${field}`;
    const positions = await stream(id, 3);
    await tamper(sql`UPDATE events SET ${assignment} WHERE stream_id = ${id} AND stream_version = 3`);
    expect([field, await verifyChain(t.db, id)]).toEqual([field, [problem(id, 3, positions[2]!, 'hash_mismatch')]]);
  }
});

test('J2 an edit whose hash was recomputed to match is a hash_mismatch on the next event', async () => {
  const positions = await stream('rehash', 4);
  await tamper(sql`UPDATE events SET data = '{"i": 99}',
      hash = event_hash((SELECT p.hash FROM events p WHERE p.stream_id = 'rehash' AND p.stream_version = 1), stream_id, stream_version,
        event_id, type, schema_version, '{"i": 99}', event_metadata(metadata, correlation_id), recorded_at)
    WHERE stream_id = 'rehash' AND stream_version = 2`);

  expect(await verifyChain(t.db, 'rehash')).toEqual([problem('rehash', 3, positions[2]!, 'hash_mismatch')]);
});

test('J2 a rewritten first event is a hash_mismatch when it claims a predecessor, and so is the next', async () => {
  const positions = await stream('first-link', 2);
  await tamper(sql`UPDATE events SET
      hash = event_hash(decode(repeat('0', 64), 'hex'), stream_id, stream_version, event_id, type, schema_version, data,
        event_metadata(metadata, correlation_id), recorded_at)
    WHERE stream_id = 'first-link' AND stream_version = 1`);

  expect(await verifyChain(t.db, 'first-link')).toEqual([
    problem('first-link', 1, positions[0]!, 'hash_mismatch'),
    problem('first-link', 2, positions[1]!, 'hash_mismatch'),
  ]);
});

test('J2 deleting an event in the middle is a version_gap on the event after it, and only there', async () => {
  const positions = await stream('delete-middle', 5);
  await tamper(sql`DELETE FROM events WHERE stream_id = 'delete-middle' AND stream_version = 2`);

  expect(await verifyChain(t.db, 'delete-middle')).toEqual([problem('delete-middle', 3, positions[2]!, 'version_gap')]);
});

test('J2 deleting the first event is a version_gap on the second', async () => {
  const positions = await stream('delete-first', 3);
  await tamper(sql`DELETE FROM events WHERE stream_id = 'delete-first' AND stream_version = 1`);

  expect(await verifyChain(t.db, 'delete-first')).toEqual([problem('delete-first', 2, positions[1]!, 'version_gap')]);
});

test('J2 swapping two events is reported on the first event out of place', async () => {
  const positions = await stream('swap', 4);
  await tamper(sql`UPDATE events SET stream_version = 100 WHERE stream_id = 'swap' AND stream_version = 2`);
  await tamper(sql`UPDATE events SET stream_version = 2 WHERE stream_id = 'swap' AND stream_version = 3`);
  await tamper(sql`UPDATE events SET stream_version = 3 WHERE stream_id = 'swap' AND stream_version = 100`);

  const problems = await verifyChain(t.db, 'swap');
  expect(problems[0]).toEqual(problem('swap', 2, positions[2]!, 'hash_mismatch'));
  expect(problems.map((p) => p.stream_version)).toEqual([2, 3, 4]);
});

test('J2 the whole-log check reports each tampered stream, in stream order, and leaves the others clean', async () => {
  // A database of its own, with one stream for each kind of problem between clean ones.
  const log = await createTestDatabase({ tampered: true });
  try {
    for (const id of ['a-clean', 'b-edited', 'c-clean', 'd-rehashed', 'e-deleted', 'f-clean']) await stream(id, 3, log.db);
    await tamper(sql`UPDATE events SET data = '{"i": 99}' WHERE stream_id = 'b-edited' AND stream_version = 2`, log.db);
    await tamper(sql`UPDATE events SET data = '{"i": 99}',
        hash = event_hash((SELECT p.hash FROM events p WHERE p.stream_id = 'd-rehashed' AND p.stream_version = 1), stream_id, stream_version,
          event_id, type, schema_version, '{"i": 99}', event_metadata(metadata, correlation_id), recorded_at)
      WHERE stream_id = 'd-rehashed' AND stream_version = 2`, log.db);
    await tamper(sql`DELETE FROM events WHERE stream_id = 'e-deleted' AND stream_version = 2`, log.db);

    const problems = await verifyChain(log.db);
    expect(problems.map((p) => [p.stream_id, p.stream_version, p.problem])).toEqual([
      ['b-edited', 2, 'hash_mismatch'],
      ['d-rehashed', 3, 'hash_mismatch'],
      ['e-deleted', 3, 'version_gap'],
    ]);
    for (const id of ['a-clean', 'b-edited', 'c-clean', 'd-rehashed', 'e-deleted', 'f-clean']) {
      expect([id, problems.filter((p) => p.stream_id === id)]).toEqual([id, await verifyChain(log.db, id)]);
    }
  } finally {
    await log.drop();
  }
});

test('J2 the trigger is back on after tampering', async () => {
  await stream('retampered', 2);
  await tamper(sql`UPDATE events SET data = '{"i": 99}' WHERE stream_id = 'retampered' AND stream_version = 1`);
  await expect(sql`DELETE FROM events WHERE stream_id = 'retampered'`.execute(t.db)).rejects.toThrow(/append-only/);
  await expect(sql`UPDATE events SET data = '{}' WHERE stream_id = 'retampered'`.execute(t.db)).rejects.toThrow(/append-only/);
});
