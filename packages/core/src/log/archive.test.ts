import { archiveStream, type LogSegmentArchivedData } from './events.ts';
import { decideSegmentArchived } from './archive.ts';

const file = { name: 'f', bytes: 1, sha256: '0'.repeat(64) };
const segment = (first: number, last: number): LogSegmentArchivedData => ({
  first_position: first,
  last_position: last,
  first_tx_id: '10',
  last_tx_id: '20',
  events: 3,
  destination: 'file:///archive/',
  segment: file,
  checkpoint: file,
  heads: [['node:edge-1', 7, 'a'.repeat(64)]],
});

test('issue 19: the first segment is recorded at version 0 of log:archive, the next ones right after the last', () => {
  const first = decideSegmentArchived({ segments: 0, lastPosition: null }, segment(1, 100));
  expect(first).toEqual({ ok: true, value: { expectedVersion: 0, events: [{ streamId: archiveStream, type: 'LogSegmentArchived', data: segment(1, 100) }] } });
  const next = decideSegmentArchived({ segments: 4, lastPosition: 100 }, segment(101, 250));
  expect(next.ok && next.value.expectedVersion).toBe(4);
});

test('issue 19: a segment recorded already, one leaving a gap or an overlap, and a backwards range are refused', () => {
  const record = { segments: 2, lastPosition: 200 };
  const code = (data: LogSegmentArchivedData) => {
    const decided = decideSegmentArchived(record, data);
    return decided.ok ? null : decided.error.code;
  };
  expect(code(segment(101, 200))).toBe('segment_already_archived');
  expect(code(segment(150, 180))).toBe('segment_already_archived');
  expect(code(segment(202, 300))).toBe('archive_not_contiguous');
  expect(code(segment(150, 300))).toBe('archive_not_contiguous');
  expect(code(segment(300, 201))).toBe('archive_range_invalid');
});
