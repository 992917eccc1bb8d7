import { prefersMinimal } from './prefer.ts';

test('A1 Prefer: return=minimal is read as RFC 7240 writes it, among other preferences, in any case, quoted or with parameters', () => {
  const minimal = ['return=minimal', 'RETURN=Minimal', 'return="minimal"', ' respond-async, return=minimal ', 'wait=10, return = minimal ; foo=bar'];
  const not = [undefined, '', 'return=representation', 'return', 'minimal', 'respond-async', 'handling=lenient, return=minimalist', 'x-return=minimal'];
  expect(minimal.filter(prefersMinimal)).toEqual(minimal);
  expect(not.filter(prefersMinimal)).toEqual([]);
});
