export type SegmentErrorCode =
  /** The events given to the encoder cannot be stored as a segment (the message says which and why). */
  | 'segment_invalid'
  /** The bytes are not a well-formed segment file: truncated, altered or not a segment at all. */
  | 'segment_corrupt'
  /** A segment file of a format version this Fleetplane cannot read. */
  | 'segment_version_unsupported';

export class SegmentError extends Error {
  readonly code: SegmentErrorCode;
  constructor(code: SegmentErrorCode, message: string) {
    super(message);
    this.name = 'SegmentError';
    this.code = code;
  }
}

export const corrupt = (message: string) => new SegmentError('segment_corrupt', `segment file is corrupt: ${message}`);
export const invalid = (message: string) => new SegmentError('segment_invalid', `cannot write segment: ${message}`);
