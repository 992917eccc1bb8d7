import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { IDLE_IN_TRANSACTION_MS } from '../packages/hub/src/database/connect.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { caller, startTestHub, testConfig, TOKENS, type TestHub } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// README, "Several Hubs": a Hub that stops in the middle of a transaction without closing its connection (its
// process frozen or paused, its machine cut off or powered off) keeps that transaction's row locks on the
// server, which sees an idle session, not a lost one (TCP keepalive would tell, hours later). Every other Hub's
// write to the same stream or node waited for as long. The server now ends such a session after
// IDLE_IN_TRANSACTION_MS: the other Hubs go on, and the frozen Hub, woken, answers its request 503.
let t: TestDatabase;
let dir: string;
let frozen: HubProcess | null = null;
let live: TestHub | null = null;

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-frozen-'));
});
afterAll(async () => {
  if (frozen) process.kill(frozen.child.pid!, 'SIGCONT');
  await frozen?.stop('SIGKILL');
  await live?.stop();
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const write = (hub: Pick<TestHub, 'call'>, n: number) =>
  hub.call('PUT', '/api/v1/streams/contended', { token: TOKENS.operator, body: { desired_state: 'running', spec: { n }, placement: { nodes: ['edge-1'], split: false } } });

test('a Hub frozen in the middle of a write holds another Hub\'s write to the same stream no longer than the idle-in-transaction bound', async () => {
  frozen = await startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig().file });
  live = await startTestHub(t.url);
  expect((await write(live, 1)).status).toBe(200);

  // The frozen Hub's write waits on the stream's row, held here; it is frozen there, and its first statements
  // then complete on the server: its session sits idle in its transaction, holding the row.
  const holder = await t.db.startTransaction().execute();
  await sql`SELECT 1 FROM streams WHERE stream_id = 'contended' FOR UPDATE`.execute(holder);
  const stuck = write(caller(frozen.url), 2);
  const waiting = () => sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = 'fleetplane-hub'`.execute(t.db);
  await eventually(async () => ((await waiting()).rows.length > 0 ? true : undefined));
  process.kill(frozen.child.pid!, 'SIGSTOP');
  await holder.commit().execute();
  await eventually(async () => {
    const { rows } = await sql`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND application_name = 'fleetplane-hub'`.execute(t.db);
    return rows.length > 0 ? true : undefined;
  });

  const started = Date.now();
  const other = write(live, 3);
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([other, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), IDLE_IN_TRANSACTION_MS + 10_000)))]);
  clearTimeout(timer);
  expect(answered?.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(IDLE_IN_TRANSACTION_MS + 10_000);

  // Woken, the frozen Hub finds its session ended: its write is answered 503 (retry it), never 500, and
  // nothing of it was kept.
  process.kill(frozen.child.pid!, 'SIGCONT');
  const late = await stuck;
  expect(late.status).toBe(503);
  expect(late.body.code).toBe('database_unavailable');
  expect((await live.call('GET', '/api/v1/streams/contended', { token: TOKENS.viewer })).body.spec).toEqual({ n: 3 });
}, 90_000);
