import { deepStrictEqual } from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { fleetSegment } from '../../../../test/support/fleet-reports.ts';
import type { Segment, SegmentEvent, StreamHeads } from './segment.ts';
import { decodeSegment, openSegment, readSegmentSummary } from './segment-reader.ts';
import { encodeSegment, SegmentWriter } from './segment-writer.ts';
import type { SegmentError } from './segment-error.ts';

const hex = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('hex'));
const uuid = hex(16).map((h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);
const text = fc.string({ unit: 'binary', maxLength: 12 });

/** JSON as events hold it, with what a codec gets wrong most easily mixed in. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53 - 2, 0.1, 1e308, -5e-324),
    fc.integer(),
    fc.maxSafeInteger(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
    text,
    uuid,
    uuid.map((u) => u.toUpperCase()),
    fc.constantFrom('', 'é', '𝄞 clef', '中文', '\u0000', 'line\nbreak', '"quoted"'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', '10', '2', 'constructor', '')), tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).value;

interface Draft {
  streams: Array<{ id: string; start: number }>;
  events: Array<{ stream: number; gap: number; txDelta: bigint; eventId: string; type: string; schemaVersion: number; data: unknown; metadata: unknown; time: number }>;
  firstPosition: number;
  slack: number;
}

const draft: fc.Arbitrary<Draft> = fc.record({
  streams: fc.uniqueArray(fc.record({ id: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }), start: fc.oneof(fc.constant(0), fc.nat(1e6)) }), {
    minLength: 1,
    maxLength: 5,
    selector: (s) => s.id,
  }),
  events: fc.array(
    fc.record({
      stream: fc.nat(4),
      gap: fc.oneof(fc.constant(0), fc.nat(1000)),
      txDelta: fc.bigInt(-(2n ** 20n), 2n ** 20n),
      eventId: uuid,
      type: fc.constantFrom('NodeReported', 'StreamDesired', 'Ω'),
      schemaVersion: fc.integer({ min: -5, max: 40000 }),
      data: json,
      metadata: json,
      time: fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
    }),
    { maxLength: 40 },
  ),
  firstPosition: fc.maxSafeInteger().map((n) => Math.floor(Math.abs(n) / 2)),
  slack: fc.nat(100),
});

/** A well-formed segment from a draft: positions increasing inside the range, versions consecutive per stream, heads that fit. */
function build(d: Draft, maxTx = 2n ** 64n - 1n): Segment {
  let position = d.firstPosition;
  let tx = maxTx / 2n;
  let time = 1_700_000_000_000_000;
  const version = d.streams.map((s) => s.start);
  const events: SegmentEvent[] = d.events.map((e) => {
    const stream = d.streams[e.stream % d.streams.length]!;
    position += e.gap + 1;
    tx += e.txDelta;
    time += e.time;
    version[e.stream % d.streams.length]! += 1;
    return {
      position,
      txId: tx.toString(),
      streamId: stream.id,
      streamVersion: version[e.stream % d.streams.length]!,
      eventId: e.eventId,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      recordedAtMicros: time,
    };
  });
  const used = new Set(events.map((e) => e.streamId));
  const streams: StreamHeads[] = d.streams
    .map((s, i) => ({
      streamId: s.id,
      start: { version: s.start, hash: s.start === 0 ? null : 'a'.repeat(64) },
      end: { version: version[i]!, hash: createHash('sha256').update(s.id).digest('hex') },
    }))
    .filter((s) => used.has(s.streamId));
  return { positions: { first: d.firstPosition, last: position + d.slack }, events, streams };
}

/** Heads in the order the decoder gives them: by each stream's first event. */
const inFirstUseOrder = (s: Segment): Segment => {
  const order = [...new Set(s.events.map((e) => e.streamId))];
  return { ...s, streams: order.map((id) => s.streams.find((h) => h.streamId === id)!) };
};

const refusal = (f: () => unknown): SegmentError => {
  try {
    f();
  } catch (e) {
    return e as SegmentError;
  }
  throw new Error('expected a refusal');
};

describe('segment file', () => {
  test('decodes to exactly the events and chain heads it was given (property)', () => {
    fc.assert(
      fc.property(draft, (d) => {
        const segment = build(d);
        const { bytes, sha256, summary } = encodeSegment(segment);
        // Node's deep equality rather than Jest's, which takes a key named `constructor` for the object's class.
        deepStrictEqual(decodeSegment(bytes), inFirstUseOrder(segment));
        expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
        expect(readSegmentSummary(bytes)).toEqual(summary);
      }),
      { numRuns: 300 },
    );
  });

  test('keeps the extremes: the largest xid8, safe integers at both ends, versions and positions near 2^53, times before 1970, an empty segment', () => {
    const d: Draft = {
      streams: [{ id: 'node:a', start: Number.MAX_SAFE_INTEGER - 5 }],
      events: [
        { stream: 0, gap: Number.MAX_SAFE_INTEGER - 12, txDelta: 2n ** 63n, eventId: '00000000-0000-0000-0000-000000000000', type: 'T', schemaVersion: 1, data: { n: Number.MAX_SAFE_INTEGER }, metadata: {}, time: -(2 ** 52) },
        { stream: 0, gap: 0, txDelta: -(2n ** 64n) + 1n, eventId: 'ffffffff-ffff-ffff-ffff-ffffffffffff', type: 'T', schemaVersion: 1, data: { n: Number.MIN_SAFE_INTEGER }, metadata: [], time: 0 },
      ],
      firstPosition: 0,
      slack: 0,
    };
    const segment = build(d, 2n ** 64n - 1n);
    segment.events[0]!.txId = (2n ** 64n - 1n).toString();
    segment.events[1]!.txId = '0';
    expect(decodeSegment(encodeSegment(segment).bytes)).toStrictEqual(segment);

    const empty: Segment = { positions: { first: 10, last: 99 }, events: [], streams: [] };
    const encoded = encodeSegment(empty);
    expect(decodeSegment(encoded.bytes)).toStrictEqual(empty);
    expect(encoded.summary).toEqual({ events: 0, streams: 0, positions: { first: 10, last: 99 }, tx_ids: null, recorded_at: null });
  });

  test('its header summarises the segment for a reader without Fleetplane: ranges, first and last transactions, times in microseconds', () => {
    const segment = fleetSegment({ nodes: 5, rounds: 3, changed: 0 });
    segment.events[0]!.txId = '7000009';
    segment.events[0]!.recordedAtMicros += 123;
    const { bytes } = encodeSegment(segment);
    const length = bytes.readUInt32BE(10);
    const header = JSON.parse(bytes.toString('utf8', 14, 14 + length));
    expect(bytes.toString('ascii', 0, 8)).toBe('FLEETSEG');
    expect(bytes.readUInt16BE(8)).toBe(1);
    expect(header).toMatchObject({
      events: 15,
      streams: 5,
      positions: { first: 500_000, last: 500_014 },
      tx_ids: { first: '7000009', last: segment.events[14]!.txId, min: segment.events[1]!.txId, max: '7000009' },
      recorded_at: { min: expect.stringMatching(/^2026-11-30T10:00:\d\d\.\d{3}123Z$/), max: expect.stringMatching(/^2026-11-30T10:00:2\d\.\d{6}Z$/) },
      compression: 'zstd',
    });
    expect(header.sections.map((s: { name: string }) => s.name)).toContain('metadata.uuid_rest');
  });

  test('issue 19: a repeated report costs at most 40 bytes in the segment file', () => {
    // 10,000 nodes reporting every 10 s for 100 s: the per-stream chain heads are spread over 10 reports each,
    // where an hour's segment spreads them over 360.
    const segment = fleetSegment({ nodes: 10_000, rounds: 10, changed: 0 });
    const { bytes } = encodeSegment(segment);
    expect(bytes.length / segment.events.length).toBeLessThanOrEqual(40);
    expect(decodeSegment(bytes).events[54_321]).toEqual(segment.events[54_321]);
  });

  test('is written one event at a time and read one event at a time; an event refused on the way leaves the writer as it was', () => {
    const segment = fleetSegment({ nodes: 50, rounds: 4, changed: 0.3 });
    const writer = new SegmentWriter(segment.positions);
    for (const [i, e] of segment.events.entries()) {
      if (i === 77) {
        const spoiled = { ...e, data: { seq: 1 }, metadata: { ...(e.metadata as object), actor: undefined } };
        expect(() => writer.add(spoiled)).toThrow(/the metadata of the event at position 500077 holds undefined/);
      }
      writer.add(e);
    }
    const opened = openSegment(writer.finish(segment.streams).bytes);
    expect(opened.summary.events).toBe(200);
    expect(opened.streams).toEqual(inFirstUseOrder(segment).streams);
    let read = 0;
    for (const e of opened.events()) expect(e).toEqual(segment.events[read++]);
    expect(read).toBe(200);
  });

  describe('a reader refuses a file it cannot trust, with the reason', () => {
    const { bytes } = encodeSegment(fleetSegment({ nodes: 20, rounds: 5, changed: 0.5 }));

    test('a format version it does not know', () => {
      const newer = Buffer.from(bytes);
      newer.writeUInt16BE(2, 8);
      const e = refusal(() => decodeSegment(newer));
      expect(e.code).toBe('segment_version_unsupported');
      expect(e.message).toBe('segment file format version 2 is not supported: this Fleetplane reads version 1 (docs/archive-format.md)');
      expect(refusal(() => readSegmentSummary(newer)).code).toBe('segment_version_unsupported');
    });

    test.each([
      ['not a segment file', () => Buffer.from('{"events": []}')],
      ['truncated', () => bytes.subarray(0, bytes.length - 100)],
      ['truncated inside its header', () => bytes.subarray(0, 40)],
      ['one byte of a section altered', () => flip(bytes, bytes.length - 20)],
      ['bytes appended', () => Buffer.concat([bytes, Buffer.from([0])])],
      ['a header that lies about its event count', () => rewriteHeader(bytes, (h) => ({ ...h, events: (h.events as number) + 1 }))],
      ['a header without a section', () => rewriteHeader(bytes, (h) => ({ ...h, sections: (h.sections as Array<{ name: string }>).filter((s) => s.name !== 'stream') }))],
    ])('%s', (_, altered) => {
      const e = refusal(() => decodeSegment(altered()));
      expect(e.code).toBe('segment_corrupt');
      expect(e.message).toMatch(/^segment file is corrupt: /);
    });
  });

  describe('the encoder refuses events it could not give back exactly, naming the event', () => {
    const good = () => fleetSegment({ nodes: 3, rounds: 2, changed: 0 });
    test.each<[string, (s: Segment) => void, RegExp]>([
      ['positions out of order', (s) => (s.events[3]!.position = s.events[2]!.position), /event at position 500002 \(index 3\) is not after the one before it/],
      ['a position outside the range', (s) => (s.positions.last = 500_004), /event at position 500005 \(index 5\) is not after the one before it inside 500000\.\.500004/],
      ['a stream without heads', (s) => s.streams.pop(), /stream "node:edge-\d" has events in the segment but no chain heads/],
      ['a start head at its first event', (s) => (s.streams[0]!.start.version += 1), /stream "node:edge-\d"'s start head is version \d+, its first event in the segment version \d+/],
      ['heads of a stream without events', (s) => s.streams.push({ ...s.streams[0]!, streamId: 'node:gone' }), /chain heads are given for streams without events in the segment: "node:gone"/],
      ['an end head that is not the last event', (s) => (s.streams[0]!.end.version += 1), /end head is version \d+, its last event in the segment version \d+/],
      ['a start head hash at version 0', (s) => (s.streams[0]!.start = { version: 0, hash: 'a'.repeat(64) }), /start head at version 0 has hash a+: a SHA-256 in hex is expected, null exactly at version 0/],
      ['an upper-case hash', (s) => (s.streams[0]!.end.hash = 'A'.repeat(64)), /end head has hash A+, not a SHA-256 in hex/],
      ['an event id that is no canonical UUID', (s) => (s.events[1]!.eventId = s.events[1]!.eventId.toUpperCase()), /event at position 500001 has event id [0-9A-F-]+, not a lower-case UUID/],
      ['a tx id beyond xid8', (s) => (s.events[1]!.txId = (2n ** 64n).toString()), /has tx_id 18446744073709551616, not an xid8/],
      ['a fractional time', (s) => (s.events[1]!.recordedAtMicros += 0.5), /has recorded_at [\d.]+, not a whole number of microseconds/],
      ['undefined inside data', (s) => (s.events[1]!.data = { seq: undefined }), /the data of the event at position 500001 holds undefined, which is not JSON/],
      ['NaN inside metadata', (s) => (s.events[1]!.metadata = { n: [NaN] }), /the metadata of the event at position 500001 holds NaN, which JSON cannot represent/],
      ['a Date inside data', (s) => (s.events[1]!.data = { at: new Date() }), /holds a Date object, not JSON/],
      ['a lone surrogate', (s) => (s.events[1]!.data = { s: '\ud800' }), /holds a string with a lone surrogate/],
    ])('%s', (_, spoil, message) => {
      const segment = good();
      spoil(segment);
      const e = refusal(() => encodeSegment(segment));
      expect(e.code).toBe('segment_invalid');
      expect(e.message).toMatch(/^cannot write segment: /);
      expect(e.message).toMatch(message);
    });
  });
});

function flip(bytes: Buffer, at: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

function rewriteHeader(bytes: Buffer, change: (h: Record<string, unknown>) => Record<string, unknown>): Buffer {
  const length = bytes.readUInt32BE(10);
  const header = Buffer.from(JSON.stringify(change(JSON.parse(bytes.toString('utf8', 14, 14 + length)))));
  const preamble = Buffer.from(bytes.subarray(0, 14));
  preamble.writeUInt32BE(header.length, 10);
  return Buffer.concat([preamble, header, bytes.subarray(14 + length)]);
}
