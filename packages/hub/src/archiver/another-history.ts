import { ArchiveError } from '../archive/archive-error.ts';
import type { Destination } from '../archive/destination.ts';
import { openSegment } from '../archive/segment-reader.ts';
import { SegmentError } from '../archive/segment-error.ts';
import type { ExportedSegment } from './export-segment.ts';

/**
 * Refuses to write a segment file over a whole one that holds another history. A file left by this log's own
 * run that stopped before recording it ends every stream at the same heads and is written again; a short or
 * unreadable object (an upload cut off) is replaced. But another database archiving to the same destination (a
 * copy restored from a backup, a staging clone) names its segments by the same positions, and its file there
 * may be the only copy of events its own database has dropped: it is kept, and this segment stays in the log.
 */
export async function refuseAnotherHistory(destination: Destination, name: string, exported: ExportedSegment): Promise<void> {
  if ((await destination.head(name)) === undefined) return;
  const existing = await destination.get(name);
  if (existing === undefined) return;
  let streams;
  try {
    streams = openSegment(existing).streams;
  } catch (e) {
    if (e instanceof SegmentError) return;
    throw e;
  }
  const ours = new Map(exported.heads.map((h) => [h.streamId, `${h.version}:${h.hash}`]));
  if (streams.length === ours.size && streams.every((s) => ours.get(s.streamId) === `${s.end.version}:${s.end.hash}`)) return;
  throw new ArchiveError(
    'archive_object_conflict',
    `archived object ${name} in ${destination.url} holds another history of positions ${exported.positions.first}-${exported.positions.last}: ` +
      'another database archives to this destination (a copy restored from a backup?). It is kept, and the segment stays in the log: ' +
      "give each database a log.archive of its own",
  );
}
