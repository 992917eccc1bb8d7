import { sql, type Kysely } from 'kysely';
import { ArchiveError } from '../archive/archive-error.ts';
import { eventHash } from '../archive/event-hash.ts';
import type { ChainHead, PositionRange, SegmentEvent } from '../archive/segment.ts';
import { SegmentWriter, type EncodedSegment } from '../archive/segment-writer.ts';
import type { Tables } from '../database/tables.ts';
import type { Segment } from '../event-store/segments.ts';
import { EVENT_COLUMNS } from '../event-store/recorded.ts';
import type { EndHead } from './record.ts';

export interface ExportedSegment {
  file: EncodedSegment;
  positions: PositionRange;
  /** The chain head of every stream the segment holds, after its last event there, in order of first event. */
  heads: EndHead[];
}

/** Events read per round trip, by default. */
const PAGE = 10_000;

/**
 * A closed segment's events as a segment file covering `positions` (the partition's range, or more below it
 * when positions before it were never stored), each stream's chain starting from its archived head (none: from
 * nothing). The partition is locked in SHARE mode first, which waits for a transaction that took a position in
 * it a moment ago, and keeps anything from being added while it is read.
 *
 * Every event's hash is recomputed from the one before it, as a verification of the file will, and compared
 * with the stored one: a segment whose file would not verify (an event edited in the database, a value the
 * file cannot give back exactly) is refused with `archive_chain_broken`, naming the event, and stays in the log.
 * `signal` ends the read between pages.
 */
export async function exportSegment(
  db: Kysely<Tables>,
  segment: Segment,
  positions: PositionRange,
  options: { signal?: AbortSignal; pageSize?: number } = {},
): Promise<ExportedSegment> {
  const { signal, pageSize = PAGE } = options;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('lock_timeout', '5s', true)`.execute(trx);
    await sql`SELECT lock_events_segment(${segment.name})`.execute(trx);
    const writer = new SegmentWriter(positions);
    const starts = new Map<string, ChainHead>();
    const ends = new Map<string, EndHead>();
    const page = (after: number) => {
      const rows = trx
        .selectFrom('events')
        .select([...EVENT_COLUMNS, sql<number>`(extract(epoch FROM recorded_at) * 1000000)::bigint`.as('recorded_at_us'), sql<string>`encode(hash, 'hex')`.as('hash')])
        .where('position', '>', after)
        .where('position', '<', segment.to)
        .orderBy('position')
        .limit(pageSize)
        .execute();
      // Awaited in its turn; a run that fails first rolls back and never reads it.
      rows.catch(() => {});
      return rows;
    };
    for (let next = page(segment.from - 1); ; ) {
      signal?.throwIfAborted();
      const rows = await next;
      await archivedHeads(trx, rows.map((r) => r.stream_id).filter((s) => !starts.has(s)), starts);
      // The server reads the next page while this one is encoded.
      if (rows.length === pageSize) next = page(rows.at(-1)!.position);
      for (const row of rows) {
        const e: SegmentEvent = {
          position: row.position,
          txId: row.tx_id,
          streamId: row.stream_id,
          streamVersion: row.stream_version,
          eventId: row.event_id,
          type: row.type,
          schemaVersion: row.schema_version,
          data: row.data,
          metadata: row.metadata,
          recordedAtMicros: row.recorded_at_us,
        };
        const before = ends.get(e.streamId) ?? starts.get(e.streamId)!;
        if (e.streamVersion !== before.version + 1 || eventHash(before.hash, e) !== row.hash) {
          throw new ArchiveError(
            'archive_chain_broken',
            `segment ${segment.name} cannot be archived: the event at position ${e.position} (stream ${JSON.stringify(e.streamId)}, version ${e.streamVersion}) ` +
              `does not follow its stream's chain from version ${before.version}; the segment stays in the log (fleetplane verify shows the break)`,
          );
        }
        writer.add(e);
        ends.set(e.streamId, { streamId: e.streamId, version: e.streamVersion, hash: row.hash, position: e.position });
      }
      if (rows.length < pageSize) break;
    }
    const heads = [...ends.values()];
    const file = writer.finish(heads.map((h) => ({ streamId: h.streamId, start: starts.get(h.streamId)!, end: { version: h.version, hash: h.hash } })));
    return { file, positions, heads };
  });
}

/** Adds the archived chain head (version 0 when none) of each stream not seen yet. */
async function archivedHeads(trx: Kysely<Tables>, streams: string[], starts: Map<string, ChainHead>): Promise<void> {
  const wanted = [...new Set(streams)];
  if (wanted.length === 0) return;
  for (const s of wanted) starts.set(s, { version: 0, hash: null });
  const { rows } = await sql<{ stream_id: string; stream_version: number; hash: string }>`
    SELECT stream_id, stream_version, encode(hash, 'hex') AS hash FROM archived_heads WHERE stream_id = ANY(${wanted}::text[])`.execute(trx);
  for (const r of rows) starts.set(r.stream_id, { version: r.stream_version, hash: r.hash });
}
