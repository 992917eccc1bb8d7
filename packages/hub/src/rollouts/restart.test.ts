import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';

// SPEC C8: rollouts across a Hub restart.
let t: TestDatabase;
const config = testConfig(3, { mode: 'configuration' });
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());

test('C8 a non-terminal rollout resumes after a restart; a paused one stays paused', async () => {
  let hub: TestHub = await startTestHub(t.url, { config });
  const call = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
  const agents = ['edge-1', 'edge-2', 'edge-3'].map((n) => new TestAgent(hub, n));
  for (const a of agents) {
    await a.register();
    await a.report();
  }
  const v = (await call('POST', '/api/v1/config-versions', { content: 'c8', format: 'text' })).body.config_version;
  const moving = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1 })).body.rollout_id;
  const paused = (await call('POST', '/api/v1/rollouts', { config_version: v, targets: { nodes: ['edge-3'] } })).body.rollout_id;
  expect((await call('POST', `/api/v1/rollouts/${paused}/actions`, { action: 'pause' })).body.state).toBe('paused');

  // The first batch converges while this Hub no longer runs progression; then it stops.
  await hub.context.rollouts.stop();
  const [attempt] = await takeConfigAttempts(agents[0]!);
  agents[0]!.apply(attempt);
  await agents[0]!.report();
  const before = (await call('GET', `/api/v1/rollouts/${moving}`)).body;
  expect(before.current_batch).toBe(0);
  expect(before.targets.map((x: any) => x.state)).toEqual(['applying', 'waiting']);
  await hub.stop();
  // Even with its queued progression job gone, the boot pass picks the rollout up.
  await sql`DELETE FROM pgboss.job WHERE name = 'rollout'`.execute(t.db);

  hub = await startTestHub(t.url, { config });
  const after = await eventually(async () => {
    const r = (await call('GET', `/api/v1/rollouts/${moving}`)).body;
    return r.current_batch === 1 ? r : undefined;
  });
  expect(after.targets.map((x: any) => [x.node_id, x.state])).toEqual([
    ['edge-1', 'converged'],
    ['edge-2', 'applying'],
  ]);
  expect((await call('GET', `/api/v1/rollouts/${paused}`)).body).toMatchObject({ state: 'paused', paused_reason: 'operator' });
  // The paused rollout's node is left alone: its intent stays where it was.
  await hub.context.rollouts.progress(paused, 'test');
  expect((await call('GET', `/api/v1/rollouts/${paused}`)).body.targets[0].state).toBe('applying');
  await hub.stop();
});
