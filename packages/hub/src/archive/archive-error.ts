export type ArchiveErrorCode =
  /** An archive destination URL or path that cannot be used (the message names it and says why). */
  | 'archive_destination_invalid'
  /** An object name outside what destinations store: path segments of letters, digits, `.`, `_` and `-`. */
  | 'archive_object_name_invalid'
  /** The destination could not be reached or refused the operation (the cause says why). */
  | 'archive_destination_failed'
  | 'archive_object_missing'
  /** An object whose size or SHA-256 is not the one recorded: half-written, truncated or altered. */
  | 'archive_object_damaged'
  /**
   * A whole segment file of another history is where this log's next one would go: another database archives
   * to the same destination (a copy restored from a backup, a clone). It is kept, and the segment stays in the log.
   */
  | 'archive_object_conflict'
  /** The archive lacks what a read of it needs (a segment file of a position range, a checkpoint), or holds it twice. */
  | 'archive_incomplete'
  /** A segment whose events do not recompute to their stored hashes: it is not archived, and stays in the log. */
  | 'archive_chain_broken';

export class ArchiveError extends Error {
  readonly code: ArchiveErrorCode;
  constructor(code: ArchiveErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ArchiveError';
    this.code = code;
  }
}
