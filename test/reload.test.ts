import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigFile, hashToken } from '../packages/hub/src/config.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { caller } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// Issue 23 item 3: SIGHUP reads the configuration file again, on a Hub running as its own process.
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
const configFile = () => join(dir, 'hub.json');
const config = (credentials: { id: string; token: string }[], reconciliation: object = {}) =>
  JSON.stringify({
    control_api: { credentials: credentials.map(({ id, token }) => ({ id, role: 'admin', token_sha256: hashToken(token) })) },
    reconciliation,
  });

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-reload-'));
  hub = await startConfiguredHub({
    databaseUrl: t.url,
    dir,
    config: ConfigFile.parse(JSON.parse(config([{ id: 'alice', token: 'alice-token-1' }]))),
  });
}, 60_000);
afterAll(async () => {
  await hub?.stop('SIGTERM');
  await t?.drop();
  await rm(dir, { recursive: true, force: true });
});

const status = async (token: string) => (await caller(hub.url).call('GET', '/api/v1/nodes', { token })).status;
/** Sends SIGHUP and waits for the Hub to log what it made of the file (the nth reload's line). */
const hangUp = async (expected: RegExp) => {
  hub.child.kill('SIGHUP');
  return eventually(async () => expected.exec(hub.output()) ?? undefined);
};

test('issue 23 item 3: SIGHUP takes a new credential and revokes a removed one at once; the Hub keeps serving', async () => {
  expect(await status('alice-token-1')).toBe(200);
  expect(await status('bob-token-1')).toBe(401);
  await writeFile(configFile(), config([{ id: 'bob', token: 'bob-token-1' }]));
  // The test's Hub logs warnings and worse only; a reload that changed nothing it cannot take says nothing.
  hub.child.kill('SIGHUP');
  await eventually(async () => ((await status('bob-token-1')) === 200 ? true : undefined));
  expect(await status('alice-token-1')).toBe(401);
  expect(hub.output()).not.toMatch(/bob-token-1|alice-token-1/);
}, 30_000);

test('issue 23 item 3: an open event stream whose credential a reload revokes is ended', async () => {
  await writeFile(configFile(), config([{ id: 'bob', token: 'bob-token-1' }, { id: 'carol', token: 'carol-token-1' }]));
  hub.child.kill('SIGHUP');
  await eventually(async () => ((await status('carol-token-1')) === 200 ? true : undefined));
  const stream = await fetch(`${hub.url}/api/v1/events/stream`, { headers: { authorization: 'Bearer carol-token-1' } });
  expect(stream.status).toBe(200);
  const body = stream.body!.getReader();
  await writeFile(configFile(), config([{ id: 'bob', token: 'bob-token-1' }]));
  hub.child.kill('SIGHUP');
  // The stream ends (done) instead of waiting for events that would still reach a revoked credential.
  for (let read = await body.read(); !read.done; read = await body.read());
  expect(await status('carol-token-1')).toBe(401);
  expect(await status('bob-token-1')).toBe(200);
}, 30_000);

test('issue 23 item 3: a broken file is refused, logged, and the running configuration kept', async () => {
  await writeFile(configFile(), '{"control_api": {"credentials": [ ');
  await hangUp(/"configuration reload refused; the running configuration is kept".*is not valid JSON/);
  expect(await status('bob-token-1')).toBe(200);
  // Valid JSON, not a valid configuration: refused whole, the good credential in it taken neither.
  await writeFile(configFile(), JSON.stringify({ control_api: { credentials: [{ id: 'dave', role: 'admin', token_sha256: hashToken('dave-token-1') }], unknown_key: 1 } }));
  await hangUp(/refused; the running configuration is kept.*unknown_key/s);
  expect(await status('dave-token-1')).toBe(401);
  expect(await status('bob-token-1')).toBe(200);
}, 30_000);

test('issue 23 item 3: a key that cannot change live is named in a warning and kept; the live ones in the same file are taken', async () => {
  const before = await caller(hub.url).call('GET', '/api/v1/settings/reconciliation', { token: 'bob-token-1' });
  expect(before.body).toMatchObject({ mode: 'lifecycle', source: 'file' });
  await writeFile(configFile(), config([{ id: 'bob', token: 'bob-token-2' }], { mode: 'observe', lease_ms: 5000 }));
  await hangUp(/reconciliation\.mode, reconciliation\.lease_ms cannot change while the Hub runs; kept as running until a restart/);
  expect(await status('bob-token-2')).toBe(200);
  expect(await status('bob-token-1')).toBe(401);
  const after = await caller(hub.url).call('GET', '/api/v1/settings/reconciliation', { token: 'bob-token-2' });
  expect(after.body).toMatchObject({ mode: 'lifecycle', source: 'file' });
}, 30_000);
