import { durationMs, hashToken, parseConfigFile } from './config.ts';
import { credentialStore } from './http/principal.ts';

const file = (digest: string) => JSON.stringify({ control_api: { credentials: [{ id: 'alice', role: 'admin', token_sha256: digest }] } });

test('a credential digest is hex in either case, as tools print it; the Hub keeps it lowercase and authenticates with it', () => {
  const parsed = parseConfigFile(file(hashToken('s3cret').toUpperCase()), 'fleetplane.json');
  expect(parsed.control_api.credentials[0]!.token_sha256).toBe(hashToken('s3cret'));
  expect(credentialStore(parsed.control_api.credentials)('s3cret')).toMatchObject({ id: 'alice', role: 'admin' });
});

test('a digest that is not 64 hex digits stops the Hub with the file named', () => {
  expect(() => parseConfigFile(file('abc'), 'fleetplane.json')).toThrow(/fleetplane\.json is not a valid Fleetplane configuration.*hex SHA-256/s);
});

test('issue 19 log.segment_duration is a duration, a day by default; a bad one stops the Hub with the key named', () => {
  expect(parseConfigFile('{}', 'fleetplane.json').log).toEqual({ segment_duration: '1d' });
  expect(durationMs(parseConfigFile('{"log": {"segment_duration": "90m"}}', 'fleetplane.json').log.segment_duration)).toBe(90 * 60_000);
  for (const [value, problem] of [
    ['"1 hour"', /a duration such as/],
    ['"30s"', /at least 1m/],
    ['"8d"', /at most 7d/],
    ['3600000', /Invalid input: expected string/],
  ] as const) {
    expect(() => parseConfigFile(`{"log": {"segment_duration": ${value}}}`, 'fleetplane.json')).toThrow(
      new RegExp(`fleetplane\\.json is not a valid Fleetplane configuration: ✖ ${problem.source}.*\\n\\s+→ at log\\.segment_duration`, 's'),
    );
  }
});
