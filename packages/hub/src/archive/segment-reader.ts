import { ByteReader } from './bytes.ts';
import { JSON_COLUMNS, JsonColumnsReader, type JsonColumn } from './json-columns.ts';
import { EVENT_COLUMNS, SECTIONS, isPosition, type EventColumn, type Segment, type SegmentEvent, type SegmentSummary, type StreamHeads } from './segment.ts';
import { readContainer, readContainerHeader, SEGMENT_FILE } from './segment-container.ts';
import { corrupt } from './segment-error.ts';
import { StringTableReader } from './string-table.ts';
import { readUuid } from './uuid-columns.ts';

export interface OpenedSegment {
  summary: SegmentSummary;
  streams: StreamHeads[];
  /**
   * The events in position order, decoded one at a time: the segment's columns stay in memory, not its events.
   * A file that does not hold what its header says is refused with `segment_corrupt` at the latest when the
   * last event has been read.
   */
  events(): Generator<SegmentEvent>;
}

/** The header's summary, without decompressing anything. */
export function readSegmentSummary(file: Uint8Array): SegmentSummary {
  return summaryOf(readContainerHeader(SEGMENT_FILE, file));
}

export function decodeSegment(file: Uint8Array): Segment {
  const opened = openSegment(file);
  return { positions: opened.summary.positions, events: [...opened.events()], streams: opened.streams };
}

export function openSegment(file: Uint8Array): OpenedSegment {
  const container = readContainer(SEGMENT_FILE, file, SECTIONS);
  const summary = summaryOf(container.header);
  const reader = (name: string) => new ByteReader(container.section(name), name);
  const streams = readStreams(reader('streams'), reader('stream_start_hashes'), reader('stream_end_hashes'));
  if (streams.length !== summary.streams) throw corrupt(`it holds ${streams.length} streams, its header says ${summary.streams}`);

  return {
    summary,
    streams,
    *events() {
      const table = new StringTableReader(reader('strings'));
      const opened: ByteReader[] = [];
      const open = (name: string) => {
        const r = reader(name);
        opened.push(r);
        return r;
      };
      const c = Object.fromEntries(EVENT_COLUMNS.map((name) => [name, open(name)])) as Record<EventColumn, ByteReader>;
      const json = (field: string) =>
        new JsonColumnsReader(Object.fromEntries(JSON_COLUMNS.map((name) => [name, open(`${field}.${name}`)])) as Record<JsonColumn, ByteReader>, table);
      const data = json('data');
      const metadata = json('metadata');
      const lastVersion = streams.map((s) => s.start.version);
      let position = summary.positions.first - 1;
      let tx = 0n;
      let time = 0;
      for (let i = 0; i < summary.events; i++) {
        position += c.position.unsigned() + 1;
        if (position > summary.positions.last) throw corrupt(`event ${i} is at position ${position}, past its range's end ${summary.positions.last}`);
        tx += c.tx_id.bigSigned();
        if (tx < 0n || tx >= 2n ** 64n) throw corrupt(`event ${i} has a tx_id beyond xid8`);
        const stream = c.stream.unsigned();
        if (stream >= streams.length) throw corrupt(`event ${i} is in stream ${stream}, beyond the ${streams.length} it lists`);
        const streamVersion = c.stream_version.delta(lastVersion[stream]! + 1);
        lastVersion[stream] = streamVersion;
        const eventIdTime = c.event_id_time;
        const eventIdRest = c.event_id_rest;
        const type = table.get(c.type.unsigned(), 'type');
        const schemaVersion = c.schema_version.signed();
        time = c.recorded_at.delta(time);
        const timeMs = Math.floor(time / 1000);
        yield {
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
        };
      }
      for (const r of opened) r.end();
      for (const [i, s] of streams.entries()) {
        if (lastVersion[i] !== s.end.version) throw corrupt(`stream ${JSON.stringify(s.streamId)} ends at version ${lastVersion[i]}, its end head says ${s.end.version}`);
      }
    },
  };
}

function readStreams(column: ByteReader, startHashes: ByteReader, endHashes: ByteReader): StreamHeads[] {
  const streams: StreamHeads[] = [];
  while (!column.done) {
    const streamId = column.utf8();
    const start = column.unsigned();
    const end = column.delta(start);
    streams.push({
      streamId,
      start: { version: start, hash: start > 0 ? hex(startHashes.raw(32)) : null },
      end: { version: end, hash: hex(endHashes.raw(32)) },
    });
  }
  startHashes.end();
  endHashes.end();
  return streams;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');

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
