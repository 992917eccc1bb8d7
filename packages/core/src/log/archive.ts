import type { FleetEvent } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { logSegmentArchived, type LogSegmentArchivedData } from './events.ts';

/** What the log records of its archive: the segments archived so far and the last position they cover. */
export interface ArchiveRecord {
  /** LogSegmentArchived events so far: the version of the stream `log:archive`. */
  segments: number;
  /** The last position of the newest archived segment; null when none is archived. */
  lastPosition: number | null;
}

export interface SegmentArchivedDecision {
  events: FleetEvent[];
  /** The version `log:archive` must be at: the segments archived before this one. */
  expectedVersion: number;
}

/**
 * Records a segment as archived. Segments leave the log oldest first, each beginning right after the last
 * one archived: a segment recorded already is refused (a run redone after a crash finds it recorded), and
 * so is one that would leave a gap or overlap in the archive's positions.
 */
export function decideSegmentArchived(record: ArchiveRecord, data: LogSegmentArchivedData): Result<SegmentArchivedDecision> {
  const range = `positions ${data.first_position}..${data.last_position}`;
  if (!(data.first_position <= data.last_position)) return fail('archive_range_invalid', `${range} is not a range of positions`);
  if (record.lastPosition !== null) {
    if (data.last_position <= record.lastPosition) {
      return fail('segment_already_archived', `${range} are archived already: the archive ends at position ${record.lastPosition}`, {
        last_archived_position: record.lastPosition,
      });
    }
    if (data.first_position !== record.lastPosition + 1) {
      return fail('archive_not_contiguous', `${range} do not begin right after the archive's last position ${record.lastPosition}`, {
        last_archived_position: record.lastPosition,
      });
    }
  }
  return ok({ events: [logSegmentArchived(data)], expectedVersion: record.segments });
}
