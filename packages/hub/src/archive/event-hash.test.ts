import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { fleetSegment } from '../../../../test/support/fleet-reports.ts';
import { eventHash } from './event-hash.ts';
import { jsonbText } from './jsonb-text.ts';
import type { SegmentEvent } from './segment.ts';
import { openSegment } from './segment-reader.ts';
import { encodeSegment } from './segment-writer.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

/** PostgreSQL refuses U+0000 in jsonb; anything else a JSON parser can give. */
const text = fc.string({ unit: 'binary', maxLength: 10 }).map((s) => s.replaceAll('\u0000', '0'));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -0, 1e21, 1.5e-7, -2.5e300, 5e-324, Number.MAX_SAFE_INTEGER, 0.1 + 0.2),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.constantFrom('é', '𝄞', '"\\/', '\u001f\b\f\n\r\t', '\u007f\u2028'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('é', 'bb', 'a', '10', '2', '__proto__')), tie('value'), { maxKeys: 5, noNullPrototype: true }),
  ),
})).value;

async function postgresTexts(values: unknown[]): Promise<string[]> {
  const { rows } = await sql<{ text: string }>`
    SELECT x::text AS text FROM jsonb_array_elements(${JSON.stringify(values)}::jsonb) WITH ORDINALITY AS e(x, i) ORDER BY i`.execute(t.db);
  return rows.map((r) => r.text);
}

/** `event_hash` of the migrations for each event, its predecessor's hash given, in one round trip. */
async function postgresHashes(links: Array<{ previous: string | null; event: SegmentEvent }>): Promise<string[]> {
  const rows = links.map(({ previous, event: e }, i) => ({
    i,
    prev_hash: previous,
    stream_id: e.streamId,
    stream_version: e.streamVersion,
    event_id: e.eventId,
    type: e.type,
    schema_version: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    micros: e.recordedAtMicros,
  }));
  const { rows: hashes } = await sql<{ hash: string }>`
    SELECT encode(event_hash(decode(prev_hash, 'hex'), stream_id, stream_version, event_id, type, schema_version, data, metadata,
      'epoch'::timestamptz + micros * interval '1 microsecond'), 'hex') AS hash
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(prev_hash text, stream_id text,
      stream_version bigint, event_id uuid, type text, schema_version integer, data jsonb, metadata jsonb, micros bigint, i integer)
    ORDER BY i`.execute(t.db);
  return hashes.map((h) => h.hash);
}

test('JSON prints as PostgreSQL prints jsonb: key order, separators, escapes, numbers in plain decimal (property)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 30 }), async (values) => {
      expect(values.map(jsonbText)).toEqual(await postgresTexts(values));
    }),
    { numRuns: 60 },
  );
});

test('issue 19: a segment file, which stores no hashes, verifies: its events chain from each stream\'s start head to the end head the database computed', async () => {
  const segment = fleetSegment({ nodes: 40, rounds: 6, changed: 0.3 });
  segment.events[5]!.recordedAtMicros += 417; // a time the database holds to the microsecond
  // The chains as the database computes them from a start head per stream: the k-th event of every stream in round k.
  const previous = new Map(segment.streams.map((s) => [s.streamId, s.start.version === 0 ? null : randomBytes(32).toString('hex')]));
  for (const s of segment.streams) s.start.hash = previous.get(s.streamId)!;
  const byStream = new Map<string, SegmentEvent[]>();
  for (const e of segment.events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
  const database = new Map<number, string>();
  for (let k = 0; ; k++) {
    const round = [...byStream.values()].filter((events) => events.length > k).map((events) => ({ previous: previous.get(events[k]!.streamId)!, event: events[k]! }));
    if (round.length === 0) break;
    const hashes = await postgresHashes(round);
    round.forEach(({ event }, i) => {
      previous.set(event.streamId, hashes[i]!);
      database.set(event.position, hashes[i]!);
    });
  }
  for (const s of segment.streams) s.end.hash = previous.get(s.streamId)!;

  const opened = openSegment(encodeSegment(segment).bytes);
  const chain = new Map(opened.streams.map((s) => [s.streamId, s.start.hash]));
  const recomputed: string[] = [];
  for (const e of opened.events()) {
    const hash = eventHash(chain.get(e.streamId)!, e);
    recomputed.push(hash);
    chain.set(e.streamId, hash);
  }
  expect(recomputed).toEqual(segment.events.map((e) => database.get(e.position)));
  for (const s of opened.streams) expect(chain.get(s.streamId)).toBe(s.end.hash);
});
