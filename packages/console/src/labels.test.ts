import { checkLabels } from './labels.ts';

test('label rules as the Hub has them (SPEC F1): 16 labels, keys and values 1-63 characters of the label syntax, unique keys', () => {
  expect(checkLabels([{ key: 'env', value: 'prod' }]).ok).toBe(true);
  expect(checkLabels([{ key: 'k'.repeat(63), value: 'v'.repeat(63) }]).ok).toBe(true);
  expect(checkLabels([{ key: 'k'.repeat(64), value: '' }]).rows[0]).toEqual({
    key: 'Key is 64 characters long: at most 63',
    value: 'Value is empty: it needs 1 to 63 characters',
  });
  const syntax = 'takes letters, digits, "-", "_" and "." only, starting and ending with a letter or digit';
  expect(checkLabels([{ key: 'a\tb', value: 'x' }]).rows[0]!.key).toBe(`Key ${syntax}`);
  expect(checkLabels([{ key: 'bad key', value: 'a,b' }]).rows[0]).toEqual({ key: `Key ${syntax}`, value: `Value ${syntax}` });
  expect(checkLabels([{ key: 'example.com/tier', value: 'edge_1.a-b' }]).ok).toBe(true);
  expect(checkLabels([{ key: 'env', value: 'a' }, { key: 'env', value: 'b' }]).rows[1]!.key).toBe('Key "env" is used twice: keys are unique');
  const many = Array.from({ length: 17 }, (_, i) => ({ key: `k${i}`, value: 'v' }));
  expect(checkLabels(many)).toMatchObject({ ok: false, map: '17 labels: a node holds at most 16' });
  expect(checkLabels(many.slice(0, 16)).ok).toBe(true);
});
