import { TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { rowsFetchedBy } from '../../../../../test/support/plans.ts';
import { readRolloutSummaries } from '../views/rollout.ts';

// A list of rollouts stays small however many targets its rollouts have (up to 10,000 each): an operator's
// `rollouts list`, which reads every page, or the console's Rollouts page reads rollouts with their targets
// counted by state, and one rollout's targets are read by its id.

const NODES = 100;
const suite = hubSuite({ config: testConfig(NODES, { mode: 'configuration' }) });

test('G5 GET /rollouts lists rollouts with their targets counted by state, read from the rollouts\' rows, not the targets; GET by id gives the targets', async () => {
  const { hub } = suite;
  const nodes = Array.from({ length: NODES }, (_, i) => `edge-${i + 1}`);
  await Promise.all(nodes.map((n) => TestAgent.reporting(hub, n)));
  const asOperator = (method: string, path: string, body: unknown) => hub.call(method, path, { token: TOKENS.operator, body });
  const version = (await asOperator('POST', '/api/v1/config-versions', { content: 'workers: 4\n', format: 'yaml' })).body.config_version;
  // The first rollout cancelled in its first batch (its waiting targets cancelled with it), the second applying.
  const cancelled = (await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: nodes.slice(0, 10) }, batch_size: 4 })).body.rollout_id;
  expect((await asOperator('POST', `/api/v1/rollouts/${cancelled}/actions`, { action: 'cancel' })).body.state).toBe('cancelled');
  const created = await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes }, batch_size: 30 });
  expect(created.status).toBe(201);
  const applying = created.body.rollout_id;

  const page = await hub.call('GET', '/api/v1/rollouts', { token: TOKENS.viewer });
  expect(page.status).toBe(200);
  expect(page.body.items.map((r: { rollout_id: string }) => r.rollout_id)).toEqual([applying, cancelled]);
  const [live, ended] = page.body.items;
  for (const item of page.body.items) expect(item).not.toHaveProperty('targets');
  expect(live).toMatchObject({ state: 'applying', recovery: 'none', target_counts: { waiting: NODES - 30, applying: 30, converged: 0, failed: 0, cancelled: 0 } });
  expect(ended.target_counts).toEqual({ waiting: 0, applying: 0, converged: 0, failed: 0, cancelled: 10 });
  // A rollout to a hundred nodes lists in well under a KiB: its targets were some 40 KiB of the page.
  expect(JSON.stringify(live).length).toBeLessThan(1024);

  const one = await hub.call('GET', `/api/v1/rollouts/${applying}`, { token: TOKENS.viewer });
  expect(one.body.targets).toHaveLength(NODES);
  expect(one.body.target_counts).toEqual(live.target_counts);
  const { targets, ...summary } = one.body;
  expect(summary).toEqual(live);

  // The counts are the rollouts' rows': a page reads none of their 110 targets (none has a recovery).
  const rows = await suite.t.db.selectFrom('rollouts').selectAll().orderBy('created_at', 'desc').execute();
  const read = await rowsFetchedBy(suite.t.db, 'rollout_targets', (trx) => readRolloutSummaries(trx, rows));
  expect(read.rows).toBe(0);
  expect(read.result.map((r) => r.target_counts)).toEqual([live.target_counts, ended.target_counts]);
});
