import { parseSelectorText } from './selector-text.ts';

test('F3 a selector as text: equality on every pair, a key asked two ways refused', () => {
  expect(parseSelectorText('env=prod,tier=edge')).toEqual({ ok: true, value: { env: 'prod', tier: 'edge' } });
  expect(parseSelectorText('env=prod,env=prod')).toEqual({ ok: true, value: { env: 'prod' } });
  expect(parseSelectorText('env=prod,env=dev')).toEqual({ ok: false, problem: 'asks env to be both prod and dev' });
  expect(parseSelectorText('env')).toEqual({ ok: false, problem: 'takes key=value pairs, got "env"' });
});

test('F3 keys named like an object\'s inherited properties are label keys like any other', () => {
  const parsed = parseSelectorText('constructor=x,toString=y');
  expect(parsed).toEqual({ ok: true, value: { constructor: 'x', toString: 'y' } });
  expect(parsed.ok && Object.keys(parsed.value)).toEqual(['constructor', 'toString']);
});
