import type { NewEvent } from '../events/envelope.ts';

/** The stream of the archive's record: one LogSegmentArchived per segment, in order (version n: the n-th segment). */
export const archiveStream = 'log:archive';

/** A file the archive holds: its name under the destination, its size and its SHA-256 (hex). */
export interface ArchivedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/**
 * A segment of the log left the database: its events are in `segment` (docs/archive-format.md), the projections
 * as of its last event in `checkpoint`, both at `destination`. `heads` is the chain head of every stream the
 * segment ends: [stream id, version, hash as hex] of its last event there. Appended before the segment's
 * partition is dropped, at the version of the segments archived before it plus one, so it is never recorded twice.
 */
export interface LogSegmentArchivedData {
  first_position: number;
  last_position: number;
  /** The committing transaction (xid8, decimal) of its first and last event by position; null when it holds none. */
  first_tx_id: string | null;
  last_tx_id: string | null;
  events: number;
  destination: string;
  segment: ArchivedFile;
  checkpoint: ArchivedFile;
  heads: Array<[stream_id: string, stream_version: number, hash: string]>;
}

export function logSegmentArchived(data: LogSegmentArchivedData): NewEvent<'LogSegmentArchived', LogSegmentArchivedData> {
  return { streamId: archiveStream, type: 'LogSegmentArchived', data: { ...data } };
}

/** The stream of the tables' pruning: one IntentHistoryPruned per run that found something to remove. */
export const historyStream = 'log:history';

/**
 * Intents and attempts left the tables, chosen as done and last changed before `before`: the intents named,
 * with all their attempts, and the attempts named, of intents that stay. Their events stay in the log and its
 * archive: the tables keep the present and a window of the past, as the hot log does. The ids are named, not
 * the rule: a replay removes exactly what the Hub removed, whatever committed around it.
 */
export interface IntentHistoryPrunedData {
  /** ISO 8601: the horizon they were chosen by. */
  before: string;
  intent_ids: string[];
  attempt_ids: string[];
}

/** The stream of the database's identity: one DatabaseIdentified per identity the Hubs found it at. */
export const databaseStream = 'database:identity';

export interface DatabaseIdentityData {
  system_identifier: string;
  timeline: number;
  database_oid: number;
}

/**
 * The database was found at this identity. `previous` is the one recorded before: null for the first record
 * (a new database, or one a release before this record ran on), else the database went back in time (a
 * restore, a point-in-time recovery, a failover to a standby that may have lost commits) or moved.
 */
export interface DatabaseIdentifiedData extends DatabaseIdentityData {
  previous: DatabaseIdentityData | null;
}
