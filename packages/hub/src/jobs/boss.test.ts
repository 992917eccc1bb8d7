import { PgBoss, type Warning } from 'pg-boss';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { JOB_HEARTBEAT_SECONDS, JOB_KEPT_SECONDS, JOB_MONITOR_SECONDS, JOB_POLL_SECONDS, jobPolling, startBoss } from './boss.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

test('a handler that overruns its job\'s expiry reaches the Hub as a warning, naming the queue', async () => {
  let warned!: (w: Warning) => void;
  const warning = new Promise<Warning>((resolve) => (warned = resolve));
  const boss = await startBoss(t.url, [{ name: 'slow', options: { expireInSeconds: 1 } }], { error: (e) => { throw e; }, warning: warned });
  try {
    // The handler holds its job until pg-boss has said the job overran.
    await boss.work('slow', { pollingIntervalSeconds: 0.5 }, async () => void (await warning));
    await boss.send('slow', {});
    expect(await warning).toMatchObject({ data: { type: 'handler_overrun', queue: 'slow' } });
  } finally {
    await boss.stop({ graceful: false });
  }
});

test('C6 C8 a stately job whose Hub died mid-run holds its key only until its heartbeat is missed, not for pg-boss\'s 15-minute expiry', async () => {
  const events = { error: (e: Error) => { throw e; }, warning: () => {} };
  const queue = [{ name: 'held', options: { policy: 'stately' as const, retryLimit: 0 } }];
  const dead = await startBoss(t.url, queue, events);
  const live = await startBoss(t.url, queue, events);
  try {
    // A Hub takes a node's pass and dies: its job stays active, with a heartbeat nobody refreshes.
    await dead.send('held', { pass: 1 }, { singletonKey: 'edge-1', heartbeatSeconds: JOB_HEARTBEAT_SECONDS });
    expect(await dead.fetch('held')).toHaveLength(1);
    const died = Date.now();
    await dead.stop({ graceful: false });
    // The next pass for that node waits behind it, then runs once the monitor has failed the dead one: within
    // a missed heartbeat, a monitor interval and a poll (README, "How late scheduled work may run"; twice that
    // asserted, for a shared machine).
    await live.send('held', { pass: 2 }, { singletonKey: 'edge-1', heartbeatSeconds: JOB_HEARTBEAT_SECONDS });
    const ran = new Promise<unknown>((resolve) => void live.work('held', jobPolling, async ([job]) => resolve(job!.data)));
    expect(await ran).toEqual({ pass: 2 });
    expect(Date.now() - died).toBeLessThanOrEqual(2 * 1000 * (JOB_HEARTBEAT_SECONDS + JOB_MONITOR_SECONDS + JOB_POLL_SECONDS));
    // The Hub's own stately jobs carry that heartbeat: a node's reconcile pass and a rollout's.
    for (const job of [reconcileJob('edge-1'), rolloutJob('ro_1')]) expect(job.options).toMatchObject({ heartbeatSeconds: JOB_HEARTBEAT_SECONDS });
  } finally {
    await live.stop({ graceful: false });
  }
}, 60_000);

test('a queue keeps its ended jobs a day: created so, or brought to it at the next start when pg-boss\'s default (7 days) was kept', async () => {
  const events = { error: (e: Error) => { throw e; }, warning: () => {} };
  // A queue as a Hub from before the retention created it: pg-boss's default.
  const before = new PgBoss({ connectionString: t.url, schema: 'pgboss', supervise: false, schedule: false });
  await before.start();
  await before.createQueue('kept-before', { notify: true });
  expect((await before.getQueue('kept-before'))!.deleteAfterSeconds).toBe(7 * 86_400);
  await before.stop({ graceful: false });

  const boss = await startBoss(t.url, [{ name: 'kept-before' }, { name: 'kept-new' }], events);
  try {
    for (const name of ['kept-before', 'kept-new']) expect((await boss.getQueue(name))!.deleteAfterSeconds).toBe(JOB_KEPT_SECONDS);
    // A job inserted now carries it, and is deleted that long after it ended.
    const id = (await boss.send('kept-before', {}))!;
    const [job] = await boss.findJobs('kept-before', { id });
    expect(job).toMatchObject({ deleteAfterSeconds: JOB_KEPT_SECONDS });
  } finally {
    await boss.stop({ graceful: false });
  }
});
