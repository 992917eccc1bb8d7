import { createHash } from 'node:crypto';
import { ByteReader, ByteWriter, isWellFormed } from './bytes.ts';
import { JSON_COLUMNS, JsonColumnsReader, JsonColumnsWriter } from './json-columns.ts';
import { readContainer, readContainerHeader, writeContainer } from './segment-container.ts';
import { corrupt, invalid } from './segment-error.ts';
import { StringTableReader, StringTableWriter } from './string-table.ts';
import { isCanonicalUuid, readUuid, writeUuid } from './uuid-columns.ts';

/**
 * A segment file: the events of a contiguous range of positions, column by column, and the chain head of
 * every stream they touch at the segment's start and end. Per-event hashes are not stored: each is recomputed
 * from the event and its predecessor's hash, starting from the stream's head at the segment's start.
 * The layout is docs/archive-format.md. The whole segment is held in memory while it is written or read,
 * about as much again as its events take as objects.
 */

/** One event, every column of the logical event. */
export interface SegmentEvent {
  position: number;
  /** The committing transaction (xid8), in decimal. */
  txId: string;
  streamId: string;
  streamVersion: number;
  /** A UUID in PostgreSQL's text form (lower-case, with dashes). */
  eventId: string;
  type: string;
  schemaVersion: number;
  /** A JSON value. */
  data: unknown;
  /** A JSON value: the logical metadata, as the hash sees it. */
  metadata: unknown;
  /** Microseconds since the Unix epoch: what the event hash reads of recorded_at. */
  recordedAtMicros: number;
}

/** A stream's chain head: its version and the hash of the event at that version (null at version 0, before any event). */
export interface ChainHead {
  version: number;
  /** SHA-256, 64 lower-case hex digits. */
  hash: string | null;
}

export interface StreamHeads {
  streamId: string;
  /** The head before the segment's first event of the stream. */
  start: ChainHead;
  /** The head after its last one. */
  end: ChainHead;
}

export interface Segment {
  /** The range of positions the segment covers, both ends included; its events lie inside, with gaps where a sequence value went unused. */
  positions: { first: number; last: number };
  /** In position order. */
  events: SegmentEvent[];
  /** One for every stream the events touch, in order of the stream's first event in the segment. */
  streams: StreamHeads[];
}

/** The header's summary of a segment, readable without decompressing anything. */
export interface SegmentSummary {
  events: number;
  streams: number;
  positions: { first: number; last: number };
  /** Of the events at the first and last positions, and the smallest and largest: commit order is not position order. */
  tx_ids: { first: string; last: string; min: string; max: string } | null;
  /** ISO 8601 with microseconds. */
  recorded_at: { min: string; max: string } | null;
}

const EVENT_COLUMNS = ['position', 'tx_id', 'stream', 'stream_version', 'event_id_time', 'event_id_rest', 'type', 'schema_version', 'recorded_at'] as const;
const STREAM_SECTIONS = ['streams', 'stream_start_hashes', 'stream_end_hashes'] as const;
const jsonSections = (field: 'data' | 'metadata') => JSON_COLUMNS.map((c) => `${field}.${c}`);
const SECTIONS = ['strings', ...STREAM_SECTIONS, ...EVENT_COLUMNS, ...jsonSections('data'), ...jsonSections('metadata')];

const HASH = /^[0-9a-f]{64}$/;
const TX_ID = /^[0-9]{1,20}$/;
const MAX_XID8 = 2n ** 64n - 1n;

export interface EncodedSegment {
  bytes: Buffer;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
  summary: SegmentSummary;
}

export function encodeSegment(segment: Segment): EncodedSegment {
  const { positions, events } = segment;
  if (!isPosition(positions.first) || !isPosition(positions.last) || positions.first > positions.last) {
    throw invalid(`position range ${positions.first}..${positions.last} is not a range of positions`);
  }
  const table = new StringTableWriter();
  const cols = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, new ByteWriter()])) as Record<(typeof EVENT_COLUMNS)[number], ByteWriter>;
  const data = new JsonColumnsWriter(table);
  const metadata = new JsonColumnsWriter(table);
  const streamIndex = new Map<string, number>();
  const lastVersion: number[] = [];
  const heads = headsByStream(segment.streams);
  const ordered: StreamHeads[] = [];
  let previousPosition = positions.first - 1;
  let previousTx = 0n;
  let previousTime = 0;

  for (const [i, e] of events.entries()) {
    const where = `event at position ${e.position}`;
    if (!isPosition(e.position) || e.position <= previousPosition || e.position > positions.last) {
      throw invalid(`${where} (index ${i}) is not after the one before it inside ${positions.first}..${positions.last}`);
    }
    cols.position.unsigned(e.position - previousPosition - 1);
    previousPosition = e.position;

    if (typeof e.txId !== 'string' || !TX_ID.test(e.txId) || BigInt(e.txId) > MAX_XID8) throw invalid(`${where} has tx_id ${String(e.txId)}, not an xid8`);
    const tx = BigInt(e.txId);
    cols.tx_id.bigSigned(tx - previousTx);
    previousTx = tx;

    if (!Number.isSafeInteger(e.streamVersion) || e.streamVersion < 1) throw invalid(`${where} has stream version ${e.streamVersion}`);
    let stream = streamIndex.get(e.streamId);
    if (stream === undefined) {
      const h = heads.get(e.streamId);
      if (h === undefined) throw invalid(`${where} is in stream ${JSON.stringify(e.streamId)}, which has no chain heads`);
      if (e.streamVersion <= h.start.version) {
        throw invalid(`${where} has version ${e.streamVersion}, not after its stream's start head (version ${h.start.version})`);
      }
      stream = ordered.length;
      streamIndex.set(e.streamId, stream);
      ordered.push(h);
      lastVersion.push(h.start.version);
    }
    cols.stream.unsigned(stream);
    cols.stream_version.delta(e.streamVersion, lastVersion[stream]! + 1);
    lastVersion[stream] = e.streamVersion;

    if (!Number.isSafeInteger(e.recordedAtMicros)) throw invalid(`${where} has recorded_at ${e.recordedAtMicros}, not a whole number of microseconds`);
    const timeMs = Math.floor(e.recordedAtMicros / 1000);
    if (typeof e.eventId !== 'string' || !isCanonicalUuid(e.eventId)) throw invalid(`${where} has event id ${String(e.eventId)}, not a lower-case UUID`);
    writeUuid(e.eventId, timeMs, cols.event_id_time, cols.event_id_rest);
    if (typeof e.type !== 'string' || !isWellFormed(e.type)) throw invalid(`${where} has type ${String(e.type)}`);
    cols.type.unsigned(table.index(e.type));
    if (!Number.isSafeInteger(e.schemaVersion)) throw invalid(`${where} has schema version ${e.schemaVersion}`);
    cols.schema_version.signed(e.schemaVersion);
    cols.recorded_at.delta(e.recordedAtMicros, previousTime);
    previousTime = e.recordedAtMicros;

    data.write(e.data, stream, timeMs, `the data of the ${where}`);
    metadata.write(e.metadata, stream, timeMs, `the metadata of the ${where}`);
  }

  if (ordered.length !== segment.streams.length) {
    const unused = segment.streams.filter((s) => !streamIndex.has(s.streamId)).map((s) => JSON.stringify(s.streamId));
    throw invalid(`chain heads are given for streams without events in the segment: ${unused.slice(0, 5).join(', ')}`);
  }
  const streams = new ByteWriter();
  const startHashes = new ByteWriter();
  const endHashes = new ByteWriter();
  for (const [i, h] of ordered.entries()) {
    if (h.end.version !== lastVersion[i] || h.end.version <= h.start.version) {
      throw invalid(`stream ${JSON.stringify(h.streamId)}'s end head is version ${h.end.version}, its last event in the segment version ${lastVersion[i]}`);
    }
    streams.utf8(h.streamId);
    streams.unsigned(h.start.version);
    streams.unsigned(h.end.version - h.start.version);
    if (h.start.version > 0) startHashes.raw(Buffer.from(h.start.hash!, 'hex'));
    endHashes.raw(Buffer.from(h.end.hash!, 'hex'));
  }

  const summary = summarize(segment, ordered.length);
  const sections: Array<[string, Uint8Array]> = [
    ['strings', table.column.bytes()],
    ['streams', streams.bytes()],
    ['stream_start_hashes', startHashes.bytes()],
    ['stream_end_hashes', endHashes.bytes()],
    ...EVENT_COLUMNS.map((c): [string, Uint8Array] => [c, cols[c].bytes()]),
    ...Object.entries(data.columns).map(([c, w]): [string, Uint8Array] => [`data.${c}`, w.bytes()]),
    ...Object.entries(metadata.columns).map(([c, w]): [string, Uint8Array] => [`metadata.${c}`, w.bytes()]),
  ];
  const bytes = writeContainer({ ...summary }, sections);
  return { bytes, sha256: sha256(bytes), summary };
}

export function readSegmentSummary(file: Uint8Array): SegmentSummary {
  return summaryOf(readContainerHeader(file));
}

export function decodeSegment(file: Uint8Array): Segment {
  const container = readContainer(file, SECTIONS);
  const summary = summaryOf(container.header);
  const opened: ByteReader[] = [];
  const reader = (name: string) => {
    const r = new ByteReader(container.section(name), name);
    opened.push(r);
    return r;
  };
  const table = new StringTableReader(reader('strings'));

  const streamsColumn = reader('streams');
  const startHashes = reader('stream_start_hashes');
  const endHashes = reader('stream_end_hashes');
  const streams: StreamHeads[] = [];
  while (!streamsColumn.done) {
    const streamId = streamsColumn.utf8();
    const start = streamsColumn.unsigned();
    const end = start + streamsColumn.unsigned();
    streams.push({
      streamId,
      start: { version: start, hash: start > 0 ? hex(startHashes.raw(32)) : null },
      end: { version: end, hash: hex(endHashes.raw(32)) },
    });
  }
  startHashes.end();
  endHashes.end();
  if (streams.length !== summary.streams) throw corrupt(`it holds ${streams.length} streams, its header says ${summary.streams}`);

  const cols = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, reader(c)])) as Record<(typeof EVENT_COLUMNS)[number], ByteReader>;
  const jsonReader = (field: string) =>
    new JsonColumnsReader(Object.fromEntries(JSON_COLUMNS.map((c) => [c, reader(`${field}.${c}`)])) as ConstructorParameters<typeof JsonColumnsReader>[0], table);
  const data = jsonReader('data');
  const metadata = jsonReader('metadata');
  const lastVersion = streams.map((s) => s.start.version);
  const events: SegmentEvent[] = [];
  let position = summary.positions.first - 1;
  let tx = 0n;
  let time = 0;
  for (let i = 0; i < summary.events; i++) {
    position += cols.position.unsigned() + 1;
    tx += cols.tx_id.bigSigned();
    const stream = cols.stream.unsigned();
    if (stream >= streams.length) throw corrupt(`event ${i} is in stream ${stream}, beyond the ${streams.length} it lists`);
    const streamVersion = cols.stream_version.delta(lastVersion[stream]! + 1);
    lastVersion[stream] = streamVersion;
    const eventIdTime = cols.event_id_time;
    const eventIdRest = cols.event_id_rest;
    const type = table.get(cols.type.unsigned(), 'type');
    const schemaVersion = cols.schema_version.signed();
    time = cols.recorded_at.delta(time);
    const timeMs = Math.floor(time / 1000);
    events.push({
      position,
      txId: tx.toString(),
      streamId: streams[stream]!.streamId,
      streamVersion,
      eventId: readUuid(timeMs, eventIdTime, eventIdRest),
      type,
      schemaVersion,
      data: data.read(stream, timeMs),
      metadata: metadata.read(stream, timeMs),
      recordedAtMicros: time,
    });
  }
  for (const r of opened) r.end();
  if (position > summary.positions.last) throw corrupt(`its events reach position ${position}, past its range's end ${summary.positions.last}`);
  for (const [i, s] of streams.entries()) {
    if (lastVersion[i] !== s.end.version) throw corrupt(`stream ${JSON.stringify(s.streamId)} ends at version ${lastVersion[i]}, its end head says ${s.end.version}`);
  }
  return { positions: summary.positions, events, streams };
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const isPosition = (p: number) => Number.isSafeInteger(p) && p >= 0;
const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');

function headsByStream(streams: StreamHeads[]): Map<string, StreamHeads> {
  const byId = new Map<string, StreamHeads>();
  for (const h of streams) {
    const name = JSON.stringify(h.streamId);
    if (typeof h.streamId !== 'string' || h.streamId.length === 0 || !isWellFormed(h.streamId)) throw invalid(`stream id ${name} is not a stream id`);
    if (byId.has(h.streamId)) throw invalid(`stream ${name} has chain heads twice`);
    const { start, end } = h;
    if (!Number.isSafeInteger(start.version) || start.version < 0) throw invalid(`stream ${name}'s start head has version ${start.version}`);
    if (start.version === 0 ? start.hash !== null : typeof start.hash !== 'string' || !HASH.test(start.hash)) {
      throw invalid(`stream ${name}'s start head at version ${start.version} has hash ${String(start.hash)}: a SHA-256 in hex is expected, null exactly at version 0`);
    }
    if (typeof end.hash !== 'string' || !HASH.test(end.hash)) throw invalid(`stream ${name}'s end head has hash ${String(end.hash)}, not a SHA-256 in hex`);
    byId.set(h.streamId, h);
  }
  return byId;
}

function summarize(segment: Segment, streams: number): SegmentSummary {
  const { events, positions } = segment;
  const first = events[0];
  const last = events[events.length - 1];
  if (first === undefined || last === undefined) return { events: 0, streams, positions, tx_ids: null, recorded_at: null };
  let min = BigInt(first.txId);
  let max = min;
  let earliest = first.recordedAtMicros;
  let latest = earliest;
  for (const e of events) {
    const tx = BigInt(e.txId);
    if (tx < min) min = tx;
    if (tx > max) max = tx;
    if (e.recordedAtMicros < earliest) earliest = e.recordedAtMicros;
    if (e.recordedAtMicros > latest) latest = e.recordedAtMicros;
  }
  return {
    events: events.length,
    streams,
    positions,
    tx_ids: { first: first.txId, last: last.txId, min: min.toString(), max: max.toString() },
    recorded_at: { min: isoMicros(earliest), max: isoMicros(latest) },
  };
}

/** `2025-01-01T00:00:00.123456Z`: Date keeps milliseconds only. */
function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, -1)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

function summaryOf(header: Record<string, unknown>): SegmentSummary {
  const { events, streams, positions } = header as Partial<SegmentSummary>;
  if (!Number.isSafeInteger(events) || events! < 0 || !Number.isSafeInteger(streams) || streams! < 0) throw corrupt('its header has no event or stream count');
  if (!positions || !isPosition(positions.first) || !isPosition(positions.last) || positions.first > positions.last) {
    throw corrupt('its header has no position range');
  }
  return {
    events: events!,
    streams: streams!,
    positions: { first: positions.first, last: positions.last },
    tx_ids: (header.tx_ids ?? null) as SegmentSummary['tx_ids'],
    recorded_at: (header.recorded_at ?? null) as SegmentSummary['recorded_at'],
  };
}
