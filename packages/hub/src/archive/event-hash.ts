import { createHash } from 'node:crypto';
import { jsonbText } from './jsonb-text.ts';
import type { SegmentEvent } from './segment.ts';

/**
 * An event's chain link, as `event_hash` (db/migrations/0001_event_store.sql) computes it in the database:
 * SHA-256 over the previous hash in the stream and every field of the logical event, joined by 0x1F.
 * This is what lets a segment file, which stores no hashes, be verified from its streams' start heads.
 */
export function eventHash(previous: string | null, e: SegmentEvent): string {
  const fields = [
    previous ?? '',
    e.streamId,
    String(e.streamVersion),
    e.eventId,
    e.type,
    String(e.schemaVersion),
    jsonbText(e.data),
    jsonbText(e.metadata),
    String(e.recordedAtMicros),
  ];
  return createHash('sha256').update(fields.join('\x1f'), 'utf8').digest('hex');
}
