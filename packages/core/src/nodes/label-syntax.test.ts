import { labelKeyProblem, labelValueProblem } from './label-syntax.ts';
import { Labels, NewLabels } from './labels.ts';

const NAME_RULE = 'takes letters, digits, "-", "_" and "." only, starting and ending with a letter or digit';

test('F1 keys and values: 1-63 letters, digits, "-", "_" and ".", a letter or digit at each end', () => {
  for (const ok of ['env', 'a', 'tier-2', 'zone_eu.west', 'A1', 'k'.repeat(63)]) {
    expect([ok, labelKeyProblem(ok)]).toEqual([ok, null]);
    expect([ok, labelValueProblem(ok)]).toEqual([ok, null]);
  }
  for (const bad of ['bad key', 'a,b', 'x=y', '-lead', 'trail.', 'tab\there', 'é', 'a/b/c']) {
    expect([bad, labelValueProblem(bad)]).toEqual([bad, expect.stringMatching(/^takes /)]);
  }
  expect(labelKeyProblem('')).toBe('is empty: it needs 1 to 63 characters');
  expect(labelValueProblem('v'.repeat(64))).toBe('is 64 characters long: at most 63');
  expect(labelKeyProblem('bad key')).toBe(NAME_RULE);
});

test('F1 a key may carry a DNS-style prefix: lower-case, then "/", then a name', () => {
  expect(labelKeyProblem('example.com/tier')).toBeNull();
  expect(labelKeyProblem('Example.com/tier')).toBe('has a prefix (before "/") that is not lower-case letters, digits, "-" and "."');
  expect(labelKeyProblem('example.com/')).toBe(`takes, after its prefix, ${NAME_RULE.slice('takes '.length)}`);
  expect(labelKeyProblem(`p/${'k'.repeat(62)}`)).toBe('is 64 characters long: at most 63');
});

test('F1 new labels follow the syntax; labels already in the log (older, looser rules) still parse', () => {
  expect(NewLabels.safeParse({ env: 'prod', 'example.com/tier': 'edge' }).success).toBe(true);
  const refused = NewLabels.safeParse({ 'bad key': 'x', x: 'a,b' });
  expect(refused.success).toBe(false);
  expect(refused.error!.issues.map((i) => i.message)).toEqual([`label key "bad key" ${NAME_RULE}`, `label value "a,b" ${NAME_RULE}`]);
  expect(NewLabels.safeParse(Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']))).success).toBe(false);
  expect(Labels.safeParse({ 'bad key': 'a,b' }).success).toBe(true);
});
