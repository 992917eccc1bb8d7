import { TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';

// A list of configuration versions stays small however large the versions are: an operator's `config list`
// or the console's version picker reads a page of summaries, and one version's content is read by its id.

const suite = hubSuite();

/** Two-byte characters enough for about half a MiB: the request body's limit is a MiB. */
const HALF_MIB_CHARS = 256 * 1024;

test('F3 GET /config-versions lists versions without their content; each names its size in bytes, and GET by id gives the content', async () => {
  const created: string[] = [];
  for (let i = 0; i < 4; i++) {
    // The size is in bytes, as stored and as an agent receives it: each 'é' is two.
    const content = `v${i}:` + 'é'.repeat(HALF_MIB_CHARS);
    const r = await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content, format: 'text' } });
    expect(r.status).toBe(201);
    expect(r.body.size_bytes).toBe(Buffer.byteLength(content));
    created.unshift(r.body.config_version);
  }
  const page = await suite.hub.call('GET', '/api/v1/config-versions', { token: TOKENS.viewer });
  expect(page.status).toBe(200);
  expect(page.body.items.map((v: { config_version: string }) => v.config_version)).toEqual(created);
  for (const item of page.body.items) {
    expect(item).not.toHaveProperty('content');
    expect(item.size_bytes).toBe(3 + HALF_MIB_CHARS * 2);
  }
  // Four versions of half a MiB each list in a page of a few hundred bytes each.
  expect(JSON.stringify(page.body).length).toBeLessThan(4 * 1024);

  const one = await suite.hub.call('GET', `/api/v1/config-versions/${created[0]}`, { token: TOKENS.viewer });
  expect(one.body.content).toBe('v3:' + 'é'.repeat(HALF_MIB_CHARS));
  expect(one.body.size_bytes).toBe(Buffer.byteLength(one.body.content));
});

test('F3 a version of 1 MiB is taken however JSON escapes its content; one byte more, in UTF-8, is 400 and stores nothing', async () => {
  const MiB = 1024 * 1024;
  // Control characters are six bytes each in JSON (\u0001): the body is about 6 MiB, past the default limit.
  const escaped = 'a\u0001"\n'.repeat(MiB / 4);
  const taken = await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: escaped, format: 'text' } });
  expect([taken.status, taken.body.size_bytes]).toEqual([201, MiB]);
  expect((await suite.hub.call('GET', `/api/v1/config-versions/${taken.body.config_version}`, { token: TOKENS.viewer })).body.content).toBe(escaped);

  const before = (await suite.hub.call('GET', '/api/v1/config-versions?limit=100', { token: TOKENS.viewer })).body.items.length;
  // Fewer characters than the limit, more bytes: 'é' is two.
  for (const content of ['x'.repeat(MiB + 1), 'é'.repeat(MiB / 2) + 'x']) {
    const refused = await suite.hub.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content, format: 'text' } });
    expect([refused.status, refused.body.code, refused.body.message]).toEqual([400, 'invalid_request', expect.stringContaining('content')]);
  }
  expect((await suite.hub.call('GET', '/api/v1/config-versions?limit=100', { token: TOKENS.viewer })).body.items.length).toBe(before);
});
