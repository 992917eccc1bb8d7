import { addWal, emptyWal, lsnValue, walPer } from './wal.ts';

test('a WAL span is the insert positions\' distance, across the 4 GB boundary of an LSN\'s halves, and printed per unit of work', () => {
  expect(lsnValue('0/16B3D48')).toBe(0x16b3d48n);
  expect(lsnValue('1/0') - lsnValue('0/FFFFF000')).toBe(4096n);
  const span = emptyWal();
  addWal(span, { lsn: lsnValue('0/FFFFF000'), fullPageImages: 10 }, { lsn: lsnValue('1/1000'), fullPageImages: 14 });
  addWal(span, { lsn: lsnValue('1/1000'), fullPageImages: 14 }, { lsn: lsnValue('1/2000'), fullPageImages: 15 });
  expect(span).toEqual({ bytes: 12_288, fullPageImages: 5 });
  expect(walPer(span, 10)).toBe('1.2 kB, 0.50 FPI');
  expect(walPer(span, 0)).toBe('–');
});
