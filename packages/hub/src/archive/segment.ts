import { JSON_COLUMNS } from './json-columns.ts';

/**
 * A segment: the events of a contiguous range of positions and the chain head of every stream they touch at
 * the segment's start and end. Per-event hashes are not stored: each is recomputed from the event and its
 * predecessor's hash, starting from the stream's head at the segment's start. Its file layout is
 * docs/archive-format.md; segment-writer.ts and segment-reader.ts write and read it.
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

export interface PositionRange {
  /** Both ends included. */
  first: number;
  last: number;
}

export interface Segment {
  /** The range the segment covers; its events lie inside, with gaps where a sequence value went unused. */
  positions: PositionRange;
  /** In position order. */
  events: SegmentEvent[];
  /** One for every stream the events touch, in order of the stream's first event in the segment. */
  streams: StreamHeads[];
}

/** The header's summary of a segment, readable without decompressing anything. */
export interface SegmentSummary {
  events: number;
  streams: number;
  positions: PositionRange;
  /** Of the events at the first and last positions, and the smallest and largest: commit order is not position order. */
  tx_ids: { first: string; last: string; min: string; max: string } | null;
  /** ISO 8601 with microseconds. */
  recorded_at: { min: string; max: string } | null;
}

export const EVENT_COLUMNS = ['position', 'tx_id', 'stream', 'stream_version', 'event_id_time', 'event_id_rest', 'type', 'schema_version', 'recorded_at'] as const;
export type EventColumn = (typeof EVENT_COLUMNS)[number];
export const jsonSections = (field: 'data' | 'metadata') => JSON_COLUMNS.map((c) => `${field}.${c}`);
/** Every section of format version 1, in the order it is written. */
export const SECTIONS = ['strings', 'streams', 'stream_start_hashes', 'stream_end_hashes', ...EVENT_COLUMNS, ...jsonSections('data'), ...jsonSections('metadata')];

export const isPosition = (p: number) => Number.isSafeInteger(p) && p >= 0;
