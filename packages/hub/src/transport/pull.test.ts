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
  const watch = pull.watch('edge-1');
  await expect(watch.wait(60_000, gone.signal)).resolves.toBe(false);
  watch.close();
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
    const watch = here.watch('edge-7');
    const waiting = watch.wait(60_000, new AbortController().signal);
    await pull.offer(['edge-7']); // announced by the other Hub
    await expect(waiting).resolves.toBe(true);
    watch.close();
  } finally {
    await here.stop();
  }
});

test('C1 a batch offered at once wakes each of its nodes\' polls on another Hub, and no other', async () => {
  const here = await startPullTransport(t.url, () => {});
  try {
    const nodes = Array.from({ length: 256 }, (_, k) => `batch-${k}`);
    const watches = nodes.map((n) => here.watch(n));
    const waiting = watches.map((w) => w.wait(60_000, new AbortController().signal));
    const bystander = new AbortController();
    const notOffered = here.watch('not-in-batch');
    const notWoken = notOffered.wait(60_000, bystander.signal);
    await pull.offer(nodes);
    await expect(Promise.all(waiting)).resolves.toEqual(nodes.map(() => true));
    bystander.abort();
    await expect(notWoken).resolves.toBe(false);
    await pull.offer([]);
    for (const w of [...watches, notOffered]) w.close();
  } finally {
    await here.stop();
  }
});

test('an announcement made between a poll\'s first look and its wait wakes that wait at once', async () => {
  const watch = pull.watch('edge-2');
  await pull.offer(['edge-2']); // while the poll looked and leased
  await expect(watch.wait(60_000, new AbortController().signal)).resolves.toBe(true);
  watch.close();
});

test('a Hub keeps the announcements of the nodes its polls watch, and of no other: retired and other Hubs\' nodes leave nothing', async () => {
  const here = await startPullTransport(t.url, () => {});
  try {
    // Two polls of one node here, both woken, both answered.
    const [first, second] = [here.watch('held'), here.watch('held')];
    expect(here.watched()).toBe(1);
    await pull.offer(['held']);
    await expect(Promise.all([first.wait(60_000, new AbortController().signal), second.wait(60_000, new AbortController().signal)])).resolves.toEqual([true, true]);
    first.close();
    expect(here.watched()).toBe(1);
    second.close();
    second.close(); // twice: harmless
    // Every Hub hears every node's announcements: a thousand nodes polling elsewhere, or retired since, and the
    // node whose polls ended. Heard in order: once the last poll's wake-up came, every one before it had.
    const last = here.watch('last');
    const woken = last.wait(60_000, new AbortController().signal);
    await pull.offer(['held', ...Array.from({ length: 1000 }, (_, k) => `elsewhere-${k}`)]);
    await pull.offer(['last']);
    await expect(woken).resolves.toBe(true);
    last.close();
    expect(here.watched()).toBe(0);
  } finally {
    await here.stop();
  }
});
