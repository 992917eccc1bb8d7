import { codeCell, count, ms, percent, seconds, table, verdict } from './format.ts';

test('counts are rounded, with thousands separators', () => {
  expect(count(12_345.6)).toBe('12,346');
  expect(count(0.4)).toBe('0');
  expect(count(NaN)).toBe('–');
});

test('milliseconds keep the precision that matters at their size', () => {
  expect(ms(0.934)).toBe('0.93 ms');
  expect(ms(27.24)).toBe('27.2 ms');
  expect(ms(1734.4)).toBe('1,734 ms');
  expect(ms(Infinity)).toBe('–');
});

test('seconds have two decimals below ten, one above', () => {
  expect(seconds(1.384)).toBe('1.38 s');
  expect(seconds(56.54)).toBe('56.5 s');
  expect(seconds(NaN)).toBe('–');
});

test('a percentage has a decimal below 10%', () => {
  expect(percent(0.0333)).toBe('3.3%');
  expect(percent(0.5)).toBe('50%');
  expect(percent(1.394)).toBe('139%');
  expect(percent(NaN)).toBe('–');
  expect(percent(0.4957, 1)).toBe('49.6%');
});

test('a verdict is PASS or BELOW', () => {
  expect(verdict(true)).toBe('PASS');
  expect(verdict(false)).toBe('BELOW');
});

test('a statement in a table cell is code, its pipes escaped, cut to its length', () => {
  expect(codeCell('SELECT a | b')).toBe('`SELECT a \\| b`');
  const long = codeCell('x'.repeat(200), 20);
  expect(long).toBe('`' + 'x'.repeat(17) + '…`');
});

test('a table is its head, a separator per column, a line per row', () => {
  expect(table(['a', 'b'], [['1', '2'], ['3', '4']])).toEqual(['| a | b |', '| --- | --- |', '| 1 | 2 |', '| 3 | 4 |']);
  expect(table(['only'], [])).toEqual(['| only |', '| --- |']);
});
