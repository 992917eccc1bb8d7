import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually } from '../../../../test/support/fleet.ts';
import { startPullTransport, type PullTransport } from './pull.ts';

let t: TestDatabase;
let pull: PullTransport;
beforeAll(async () => {
  t = await createTestDatabase();
  // Its LISTEN connection is terminated by a test below: errors are expected then.
  pull = await startPullTransport(t.url, () => {});
});
afterAll(async () => {
  await pull.stop();
  await t.drop();
});

test('a long poll whose caller is already gone ends at once, not at its deadline a minute later', async () => {
  const gone = new AbortController();
  gone.abort();
  await expect(pull.wait('edge-1', 60_000, gone.signal)).resolves.toBe(false);
});

test('a lost LISTEN connection is opened again: another Hub\'s announcements wake this Hub\'s polls again', async () => {
  const errors: Error[] = [];
  const here = await startPullTransport(t.url, (e) => void errors.push(e));
  const listeners = async () =>
    (await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(t.db)).rows.map((r) => r.pid);
  try {
    // Both transports listen; the server ends every listening session (a failover, an operator's terminate).
    const before = await listeners();
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`.execute(t.db);
    await eventually(async () => (errors.length > 0 ? true : undefined));
    await eventually(async () => ((await listeners()).filter((p) => !before.includes(p)).length >= 2 ? true : undefined));
    const waiting = here.wait('edge-7', 60_000, new AbortController().signal);
    await pull.offer(['edge-7']); // announced by the other Hub
    await expect(waiting).resolves.toBe(true);
  } finally {
    await here.stop();
  }
});

test('C1 a batch offered at once wakes each of its nodes\' polls on another Hub, and no other', async () => {
  const here = await startPullTransport(t.url, () => {});
  try {
    const nodes = Array.from({ length: 256 }, (_, k) => `batch-${k}`);
    const waiting = nodes.map((n) => here.wait(n, 60_000, new AbortController().signal));
    const bystander = new AbortController();
    const notOffered = here.wait('not-in-batch', 60_000, bystander.signal);
    await pull.offer(nodes);
    await expect(Promise.all(waiting)).resolves.toEqual(nodes.map(() => true));
    expect(nodes.every((n) => here.offers(n) === 1)).toBe(true);
    expect(here.offers('not-in-batch')).toBe(0);
    bystander.abort();
    await expect(notOffered).resolves.toBe(false);
    await pull.offer([]);
  } finally {
    await here.stop();
  }
});
