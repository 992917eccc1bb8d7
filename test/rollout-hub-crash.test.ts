import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { JOB_POLL_SECONDS } from '../packages/hub/src/jobs/boss.ts';
import { holdPassBarrier } from '../packages/hub/src/jobs/pass-barrier.ts';
import { ROLLOUT_QUEUE } from '../packages/hub/src/rollouts/queues.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, takeConfigAttempts, TestAgent } from './support/fleet.ts';
import { caller, testConfig, TOKENS } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// SPEC C8 with a real crash: the Hub process is killed with SIGKILL in the middle of the rollout pass that
// would start the next batch. Its job stays active, holding the rollout's key until pg-boss's monitor fails
// it on its missed heartbeat; the Hub started again must not wait for that (README, "How late scheduled
// work may run": the batch starts by the time the new Hub is ready; asserted with five times the workers'
// poll of headroom for a shared machine).
const BOUND_MS = 5 * JOB_POLL_SECONDS * 1000;
let t: TestDatabase;
let dir: string;
let hub: HubProcess | null = null;
beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-rollout-crash-'));
});
afterAll(async () => {
  await hub?.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const start = (): Promise<HubProcess> => startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig(2, { mode: 'configuration' }).file });

test('C8 kill -9 mid-pass: the batch that converged moves on by the time the restarted Hub is ready, not when the dead pass\'s key is freed', async () => {
  hub = await start();
  let api = caller(hub.url);
  const agents = ['edge-1', 'edge-2'].map((n) => new TestAgent(api, n));
  for (const a of agents) {
    await a.register();
    await a.report();
  }
  const version = (await api.call('POST', '/api/v1/config-versions', { token: TOKENS.operator, body: { content: 'c8-crash', format: 'text' } })).body.config_version;
  const created = await api.call('POST', '/api/v1/rollouts', { token: TOKENS.operator, body: { config_version: version, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1 } });
  expect(created.status).toBe(201);
  const id = created.body.rollout_id;
  const [attempt] = await takeConfigAttempts(agents[0]!);
  agents[0]!.apply(attempt);

  // A command still committing holds the rollout's pass barrier: the pass the proving report asks for takes
  // its job and waits there, and the Hub dies in it.
  const committing = await t.db.startTransaction().execute();
  try {
    await committing.executeQuery(holdPassBarrier(committing, ROLLOUT_QUEUE, id));
    expect((await agents[0]!.report()).status).toBe(202);
    await eventually(async () => {
      const { rows } = await sql`SELECT 1 FROM pgboss.job WHERE name = ${ROLLOUT_QUEUE} AND singleton_key = ${id} AND state = 'active'`.execute(t.db);
      return rows.length ? true : undefined;
    });
    expect(await hub.stop('SIGKILL')).toBeNull();
  } finally {
    await committing.rollback().execute();
  }

  hub = await start();
  const ready = Date.now();
  api = caller(hub.url);
  const started = await eventually(async () => {
    const { rows } = await sql<{ recorded_at: Date }>`
      SELECT recorded_at FROM events WHERE type = 'RolloutBatchStarted' AND data->>'rollout_id' = ${id} AND (data->>'batch')::int = 1`.execute(t.db);
    return rows[0]?.recorded_at;
  }, 60_000);
  expect(started.getTime() - ready).toBeLessThanOrEqual(BOUND_MS);
  expect((await api.call('GET', `/api/v1/rollouts/${id}`)).body).toMatchObject({ state: 'applying', current_batch: 1 });
}, 90_000);
