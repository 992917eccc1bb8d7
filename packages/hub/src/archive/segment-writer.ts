import { createHash } from 'node:crypto';
import { ByteWriter, isWellFormed } from './bytes.ts';
import { JsonColumnsWriter } from './json-columns.ts';
import { EVENT_COLUMNS, isPosition, type EventColumn, type PositionRange, type Segment, type SegmentEvent, type SegmentSummary, type StreamHeads } from './segment.ts';
import { SEGMENT_FILE, writeContainer } from './segment-container.ts';
import { invalid } from './segment-error.ts';
import { StringTableWriter } from './string-table.ts';
import { isCanonicalUuid, writeUuid } from './uuid-columns.ts';

const HASH = /^[0-9a-f]{64}$/;
const TX_ID = /^[0-9]{1,20}$/;
const MAX_XID8 = 2n ** 64n - 1n;

export interface EncodedSegment {
  bytes: Buffer;
  /** SHA-256 of the whole file, hex. */
  sha256: string;
  summary: SegmentSummary;
}

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

export function encodeSegment(segment: Segment): EncodedSegment {
  const writer = new SegmentWriter(segment.positions);
  for (const e of segment.events) writer.add(e);
  return writer.finish(segment.streams);
}

/**
 * Writes a segment one event at a time, in position order, so the events need not all be in memory at once:
 * what it holds is the segment's columns (tens of bytes per event before compression) and, per stream, the
 * values its next event is written against. Every event is checked as it is added: anything the file could
 * not give back exactly is refused with `segment_invalid`, naming the event, and leaves the writer as it was.
 */
export class SegmentWriter {
  private readonly positions: PositionRange;
  private readonly table = new StringTableWriter();
  private readonly columns = Object.fromEntries(EVENT_COLUMNS.map((c) => [c, new ByteWriter()])) as Record<EventColumn, ByteWriter>;
  private readonly data: JsonColumnsWriter;
  private readonly metadata: JsonColumnsWriter;
  private readonly streamIndex = new Map<string, number>();
  private readonly streamIds: string[] = [];
  private readonly firstVersion: number[] = [];
  private readonly lastVersion: number[] = [];
  private previousPosition: number;
  private previousTx = 0n;
  private previousTime = 0;
  private readonly seen = { events: 0, firstTx: '', lastTx: '', minTx: 0n, maxTx: 0n, minTime: 0, maxTime: 0 };

  constructor(positions: PositionRange) {
    if (!isPosition(positions.first) || !isPosition(positions.last) || positions.first > positions.last) {
      throw invalid(`position range ${positions.first}..${positions.last} is not a range of positions`);
    }
    this.positions = { first: positions.first, last: positions.last };
    this.previousPosition = positions.first - 1;
    this.data = new JsonColumnsWriter(this.table);
    this.metadata = new JsonColumnsWriter(this.table);
  }

  add(e: SegmentEvent): void {
    const c = this.columns;
    const where = `event at position ${e.position}`;
    if (!isPosition(e.position) || e.position <= this.previousPosition || e.position > this.positions.last) {
      throw invalid(`${where} (index ${this.seen.events}) is not after the one before it inside ${this.positions.first}..${this.positions.last}`);
    }
    if (typeof e.txId !== 'string' || !TX_ID.test(e.txId)) throw invalid(`${where} has tx_id ${String(e.txId)}, not an xid8`);
    const tx = BigInt(e.txId);
    if (tx > MAX_XID8) throw invalid(`${where} has tx_id ${e.txId}, not an xid8`);
    if (typeof e.streamId !== 'string' || e.streamId.length === 0 || !isWellFormed(e.streamId)) throw invalid(`${where} has stream id ${JSON.stringify(e.streamId)}`);
    if (!Number.isSafeInteger(e.streamVersion) || e.streamVersion < 1) throw invalid(`${where} has stream version ${e.streamVersion}`);
    if (typeof e.eventId !== 'string' || !isCanonicalUuid(e.eventId)) throw invalid(`${where} has event id ${String(e.eventId)}, not a lower-case UUID`);
    if (typeof e.type !== 'string' || !isWellFormed(e.type)) throw invalid(`${where} has type ${String(e.type)}`);
    if (!Number.isSafeInteger(e.schemaVersion)) throw invalid(`${where} has schema version ${e.schemaVersion}`);
    if (!Number.isSafeInteger(e.recordedAtMicros)) throw invalid(`${where} has recorded_at ${e.recordedAtMicros}, not a whole number of microseconds`);

    // Taking data and metadata apart is all that can still refuse the event: before anything is written.
    const data = this.data.split(e.data, `the data of the ${where}`);
    const metadata = this.metadata.split(e.metadata, `the metadata of the ${where}`);

    let stream = this.streamIndex.get(e.streamId);
    if (stream === undefined) {
      stream = this.streamIds.length;
      this.streamIndex.set(e.streamId, stream);
      this.streamIds.push(e.streamId);
      this.firstVersion.push(e.streamVersion);
      this.lastVersion.push(e.streamVersion - 1);
    }
    const timeMs = Math.floor(e.recordedAtMicros / 1000);
    this.data.write(data, stream, timeMs);
    this.metadata.write(metadata, stream, timeMs);

    c.position.unsigned(e.position - this.previousPosition - 1);
    c.tx_id.bigSigned(tx - this.previousTx);
    c.stream.unsigned(stream);
    c.stream_version.delta(e.streamVersion, this.lastVersion[stream]! + 1);
    writeUuid(e.eventId, timeMs, c.event_id_time, c.event_id_rest);
    c.type.unsigned(this.table.index(e.type));
    c.schema_version.signed(e.schemaVersion);
    c.recorded_at.delta(e.recordedAtMicros, this.previousTime);

    this.previousPosition = e.position;
    this.previousTx = tx;
    this.previousTime = e.recordedAtMicros;
    this.lastVersion[stream] = e.streamVersion;
    const s = this.seen;
    if (s.events === 0) {
      s.firstTx = e.txId;
      s.minTx = s.maxTx = tx;
      s.minTime = s.maxTime = e.recordedAtMicros;
    }
    s.events += 1;
    s.lastTx = e.txId;
    if (tx < s.minTx) s.minTx = tx;
    if (tx > s.maxTx) s.maxTx = tx;
    if (e.recordedAtMicros < s.minTime) s.minTime = e.recordedAtMicros;
    if (e.recordedAtMicros > s.maxTime) s.maxTime = e.recordedAtMicros;
  }

  /** The file, given the chain heads of exactly the streams the events touch. */
  finish(heads: StreamHeads[]): EncodedSegment {
    const byId = headsByStream(heads);
    const streams = new ByteWriter();
    const startHashes = new ByteWriter();
    const endHashes = new ByteWriter();
    for (const [i, streamId] of this.streamIds.entries()) {
      const name = JSON.stringify(streamId);
      const h = byId.get(streamId);
      if (h === undefined) throw invalid(`stream ${name} has events in the segment but no chain heads`);
      if (h.start.version >= this.firstVersion[i]!) {
        throw invalid(`stream ${name}'s start head is version ${h.start.version}, its first event in the segment version ${this.firstVersion[i]}`);
      }
      if (h.end.version !== this.lastVersion[i]) {
        throw invalid(`stream ${name}'s end head is version ${h.end.version}, its last event in the segment version ${this.lastVersion[i]}`);
      }
      streams.utf8(streamId);
      streams.unsigned(h.start.version);
      // Versions may go back in a stream whose history was tampered with: the file keeps what the log holds.
      streams.delta(h.end.version, h.start.version);
      if (h.start.version > 0) startHashes.raw(Buffer.from(h.start.hash!, 'hex'));
      endHashes.raw(Buffer.from(h.end.hash!, 'hex'));
    }
    if (byId.size !== this.streamIds.length) {
      const unused = heads.filter((h) => !this.streamIndex.has(h.streamId)).map((h) => JSON.stringify(h.streamId));
      throw invalid(`chain heads are given for streams without events in the segment: ${unused.slice(0, 5).join(', ')}`);
    }

    const summary = this.summary();
    const json = (field: string, w: JsonColumnsWriter) => Object.entries(w.columns).map(([c, col]): [string, Uint8Array] => [`${field}.${c}`, col.bytes()]);
    const bytes = writeContainer(SEGMENT_FILE, { ...summary }, [
      ['strings', this.table.column.bytes()],
      ['streams', streams.bytes()],
      ['stream_start_hashes', startHashes.bytes()],
      ['stream_end_hashes', endHashes.bytes()],
      ...EVENT_COLUMNS.map((c): [string, Uint8Array] => [c, this.columns[c].bytes()]),
      ...json('data', this.data),
      ...json('metadata', this.metadata),
    ]);
    return { bytes, sha256: sha256(bytes), summary };
  }

  private summary(): SegmentSummary {
    const s = this.seen;
    const base = { events: s.events, streams: this.streamIds.length, positions: this.positions };
    if (s.events === 0) return { ...base, tx_ids: null, recorded_at: null };
    return {
      ...base,
      tx_ids: { first: s.firstTx, last: s.lastTx, min: s.minTx.toString(), max: s.maxTx.toString() },
      recorded_at: { min: isoMicros(s.minTime), max: isoMicros(s.maxTime) },
    };
  }
}

function headsByStream(streams: StreamHeads[]): Map<string, StreamHeads> {
  const byId = new Map<string, StreamHeads>();
  for (const h of streams) {
    const name = JSON.stringify(h.streamId);
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

/** `2025-01-01T00:00:00.123456Z`: Date keeps milliseconds only. */
function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, -1)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}
