import { randomUUID } from 'node:crypto';
import { archiveStream, type LogSegmentArchivedData } from '@fleetplane/core';
import { sql, type Kysely } from 'kysely';
import type { Destination } from '../../packages/hub/src/archive/destination.ts';
import { readVerified } from '../../packages/hub/src/archive/destination.ts';
import type { SegmentEvent, StreamHeads } from '../../packages/hub/src/archive/segment.ts';
import { encodeSegment } from '../../packages/hub/src/archive/segment-writer.ts';
import { encodeCheckpoint } from '../../packages/hub/src/checkpoints/checkpoint-file.ts';
import { deriveCheckpoint } from '../../packages/hub/src/checkpoints/derive.ts';
import type { Tables } from '../../packages/hub/src/database/tables.ts';
import { appendToStream } from '../../packages/hub/src/event-store/append.ts';
import { keepSegmentsAhead, listSegments, SEGMENT_BOUNDS } from '../../packages/hub/src/event-store/segments.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';

/**
 * Test support: archiving as the design (docs/archive-format.md, LogSegmentArchived) lays it out, built from the
 * archive's building blocks, for tests of what reads an archive (verify, replay). Not the Hub's archiver.
 */

const padded = (p: number) => String(p).padStart(19, '0');

/**
 * Test support: moves the position sequence to the end of the segment being written, as a log that filled it
 * would, so that segment closes once its writers are done; and keeps segments ahead, as a Hub does.
 */
export async function closeCurrentSegment(db: Kysely<Tables>): Promise<void> {
  const segments = await listSegments(db);
  const { rows } = await sql<{ handed: number }>`SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS handed FROM events_position_seq`.execute(db);
  const current = segments.find((s) => s.from <= rows[0]!.handed + 1 && rows[0]!.handed + 1 < s.to)!;
  await sql`SELECT setval('events_position_seq', ${current.to - 1})`.execute(db);
  await keepSegmentsAhead(db, { ...SEGMENT_BOUNDS, durationMs: 3_600_000 }, new Date());
}

/**
 * Test support: archives the log's oldest segment, which must be closed, to `destination`: its segment file and
 * the projections' checkpoint as of its last position, each read back verified; then, in one transaction,
 * LogSegmentArchived on `log:archive` at the expected version, the streams' heads into archived_heads and the
 * checkpoint into projection_checkpoints; then the partition is detached and dropped.
 */
export async function archiveOldestSegment(db: Kysely<Tables>, destination: Destination): Promise<LogSegmentArchivedData> {
  let oldest = (await listSegments(db))[0]!;
  for (const deadline = Date.now() + 10_000; !oldest.closed; oldest = (await listSegments(db))[0]!) {
    if (Date.now() > deadline || oldest.ahead) throw new Error(`segment ${oldest.name} is not closed`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const first = oldest.from;
  const last = oldest.to - 1;
  const { rows } = await sql<{
    position: number; tx_id: string; stream_id: string; stream_version: number; event_id: string; type: string; schema_version: number;
    data: unknown; metadata: unknown; micros: string; hash: string;
  }>`
    SELECT position, tx_id::text AS tx_id, stream_id, stream_version, event_id::text AS event_id, type, schema_version, data,
      event_metadata(metadata, correlation_id) AS metadata, (extract(epoch FROM recorded_at) * 1000000)::text AS micros, encode(hash, 'hex') AS hash
    FROM ${sql.table(oldest.name)} ORDER BY position`.execute(db);
  const events: SegmentEvent[] = rows.map((r) => ({
    position: r.position,
    txId: r.tx_id,
    streamId: r.stream_id,
    streamVersion: r.stream_version,
    eventId: r.event_id,
    type: r.type,
    schemaVersion: r.schema_version,
    data: r.data,
    metadata: r.metadata,
    recordedAtMicros: Number(r.micros),
  }));
  const archived = new Map(
    (await db.selectFrom('archived_heads').select(['stream_id', 'stream_version', 'hash']).execute()).map((h) => [h.stream_id, h]),
  );
  const heads = new Map<string, StreamHeads & { position: number }>();
  for (const [i, e] of events.entries()) {
    const before = archived.get(e.streamId);
    const h = heads.get(e.streamId) ?? {
      streamId: e.streamId,
      start: before ? { version: before.stream_version, hash: before.hash.toString('hex') } : { version: 0, hash: null },
      end: { version: 0, hash: null },
      position: 0,
    };
    h.end = { version: e.streamVersion, hash: rows[i]!.hash };
    h.position = e.position;
    heads.set(e.streamId, h);
  }

  const segment = encodeSegment({ positions: { first, last }, events, streams: [...heads.values()].map(({ position: _, ...h }) => h) });
  const segmentName = `segments/${padded(first)}-${padded(last)}.fseg`;
  await destination.put(segmentName, segment.bytes);
  await readVerified(destination, segmentName, { size: segment.bytes.length, sha256: segment.sha256 });
  const checkpoint = encodeCheckpoint(await deriveCheckpoint(db, allProjections, last));
  const checkpointName = `checkpoints/${padded(last)}.fckp`;
  await destination.put(checkpointName, checkpoint.bytes);
  await readVerified(destination, checkpointName, { size: checkpoint.bytes.length, sha256: checkpoint.sha256 });

  const { rows: before } = await sql<{ stream_version: number }>`SELECT stream_version FROM stream_heads WHERE stream_id = ${archiveStream}`.execute(db);
  const data: LogSegmentArchivedData = {
    first_position: first,
    last_position: last,
    first_tx_id: segment.summary.tx_ids?.first ?? '0',
    last_tx_id: segment.summary.tx_ids?.last ?? '0',
    events: events.length,
    destination: destination.url,
    segment: { name: segmentName, bytes: segment.bytes.length, sha256: segment.sha256 },
    checkpoint: { name: checkpointName, bytes: checkpoint.bytes.length, sha256: checkpoint.sha256 },
    heads: [...heads.values()].map((h) => [h.streamId, h.end.version, h.end.hash!]),
  };
  await db.transaction().execute(async (trx) => {
    const appended = await appendToStream(trx, archiveStream, before[0]?.stream_version ?? 0, [
      {
        type: 'LogSegmentArchived',
        schemaVersion: 1,
        data: { ...data },
        metadata: { actor: 'hub', role: 'system', correlation_id: randomUUID(), causation_id: null, source: 'worker' },
        recordedAt: new Date(),
      },
    ]);
    if (!appended.ok) throw new Error(`LogSegmentArchived not appended: ${JSON.stringify(appended.error)}`);
    for (const h of heads.values()) {
      await sql`
        INSERT INTO archived_heads (stream_id, stream_version, hash, position)
        VALUES (${h.streamId}, ${h.end.version}, decode(${h.end.hash}, 'hex'), ${h.position})
        ON CONFLICT (stream_id) DO UPDATE SET stream_version = excluded.stream_version, hash = excluded.hash, position = excluded.position`.execute(trx);
    }
    await trx
      .insertInto('projection_checkpoints')
      .values({ position: last, taken_at: new Date(), content: checkpoint.bytes, sha256: checkpoint.sha256 })
      .execute();
  });
  await sql`ALTER TABLE events DETACH PARTITION ${sql.table(oldest.name)}`.execute(db);
  await sql`DROP TABLE ${sql.table(oldest.name)}`.execute(db);
  return data;
}
