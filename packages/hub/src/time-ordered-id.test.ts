import { timeOrderedUuid } from './time-ordered-id.ts';

test('a time-ordered id is a UUID version 7 carrying its millisecond', () => {
  const ms = Date.UTC(2026, 10, 30, 23, 59, 59, 123);
  const id = timeOrderedUuid(ms);
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(ms);
});

test('ids of later milliseconds sort after earlier ones; ids of one millisecond all differ', () => {
  const ms = Date.UTC(2026, 10, 30);
  const ids = Array.from({ length: 5000 }, (_, i) => timeOrderedUuid(ms + Math.floor(i / 1000)));
  expect(new Set(ids).size).toBe(ids.length);
  for (let i = 1000; i < ids.length; i += 1000) expect(ids[i - 1]! < ids[i]!).toBe(true);
  expect([...ids].sort().map((id) => id.slice(0, 13))).toEqual(ids.map((id) => id.slice(0, 13)));
});
