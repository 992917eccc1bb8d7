import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { checkpointTables, writeTables } from '../../../../test/support/checkpoint.ts';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig, type TestHub, TOKENS } from '../../../../test/support/hub.ts';
import { deriveCheckpoint } from '../checkpoints/derive.ts';
import { openCheckpoint } from '../checkpoints/checkpoint-file.ts';
import { allProjections } from '../projections/all.ts';
import { applyProjections } from '../projections/projection.ts';
import { rolloutsProjection } from '../projections/rollouts.ts';
import { rebuild } from '../projections/rebuild.ts';
import { verifyProjections } from '../projections/verify.ts';

// A rollout's targets counted by state are kept on its row by the rollouts projection (migration 0026), moved
// in the statement that moves the targets: exact through every transition a target makes, and proved by
// verify, which rebuilds them as counts of the rebuilt targets.

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, { config: testConfig(6, { mode: 'configuration' }) });
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const asOperator = (method: string, path: string, body?: unknown) => hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined ? { body } : {}) });
const version = async (content: string): Promise<string> => (await asOperator('POST', '/api/v1/config-versions', { content, format: 'text' })).body.config_version;
const rollout = async (id: string) => (await hub.call('GET', `/api/v1/rollouts/${id}`)).body;
const act = (id: string, body: unknown) => asOperator('POST', `/api/v1/rollouts/${id}/actions`, body);

/** The rollout's counts as the list reads them (its row), which must be its targets counted now. */
async function expectCounts(id: string, expected: Record<string, number>): Promise<void> {
  const listed = (await hub.call('GET', '/api/v1/rollouts?limit=100')).body.items.find((r: any) => r.rollout_id === id);
  const { rows } = await sql<{ state: string; n: number }>`SELECT state, count(*)::int AS n FROM rollout_targets WHERE rollout_id = ${id} GROUP BY state`.execute(t.db);
  const counted = { waiting: 0, applying: 0, converged: 0, failed: 0, cancelled: 0, ...Object.fromEntries(rows.map((r) => [r.state, r.n])) };
  expect(counted).toEqual({ waiting: 0, applying: 0, converged: 0, failed: 0, cancelled: 0, ...expected });
  expect(listed.target_counts).toEqual(counted);
}

const stateOf = (id: string, node: string, state: string) =>
  eventually(async () => ((await rollout(id)).targets.find((x: any) => x.node_id === node)?.state === state ? true : undefined));

test('G1 G2 G6 K2 a rollout\'s target counts stay exact through every target transition, and verify proves them', async () => {
  const agents = await Promise.all([1, 2, 3, 4, 5].map((n) => TestAgent.reporting(hub, `edge-${n}`)));
  const [base, next] = [await version('counts-base'), await version('counts-next')];
  // Created: its first batch applying (waiting → applying), the rest waiting.
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: next, targets: { nodes: ['edge-1', 'edge-2', 'edge-3', 'edge-4', 'edge-5'] }, batch_size: 2 })).body.rollout_id;
  await expectCounts(id, { waiting: 3, applying: 2 });

  // applying → converged, and applying → failed (which pauses the rollout).
  const [apply] = await takeConfigAttempts(agents[0]!);
  agents[0]!.apply(apply);
  await agents[0]!.result(apply.attempt_id, { outcome: 'succeeded', generation: apply.generation });
  await agents[0]!.report();
  const [refused] = await takeConfigAttempts(agents[1]!);
  await agents[1]!.result(refused.attempt_id, { outcome: 'failed', generation: refused.generation, failure_class: 'permanent', code: 'invalid_config', message: 'parse error' });
  await eventually(async () => ((await rollout(id)).state === 'paused' ? true : undefined));
  await expectCounts(id, { waiting: 3, converged: 1, failed: 1 });

  // failed → applying on resume.
  expect((await act(id, { action: 'resume' })).status).toBe(200);
  await expectCounts(id, { waiting: 3, converged: 1, applying: 1 });
  const [again] = await takeConfigAttempts(agents[1]!);
  agents[1]!.apply(again);
  await agents[1]!.result(again.attempt_id, { outcome: 'succeeded', generation: again.generation });
  await agents[1]!.report();
  // The next batch starts: waiting → applying.
  await stateOf(id, 'edge-3', 'applying');
  await expectCounts(id, { waiting: 1, converged: 2, applying: 2 });

  // A retired node's target leaves: applying → cancelled, and waiting → cancelled.
  expect((await asOperator('DELETE', '/api/v1/nodes/edge-4?force=true')).status).toBe(200);
  expect((await asOperator('DELETE', '/api/v1/nodes/edge-5?force=true')).status).toBe(200);
  await expectCounts(id, { converged: 2, applying: 1, cancelled: 2 });

  // Rolled back: its open targets end (applying → cancelled), and the rollback counts its own.
  const back = await act(id, { action: 'rollback', config_version: base });
  expect(back.status).toBe(201);
  await expectCounts(id, { converged: 2, cancelled: 3 });
  await expectCounts(back.body.rollout_id, { applying: 2, waiting: 1 });
  // Cancelled: waiting and applying → cancelled at once.
  expect((await act(back.body.rollout_id, { action: 'cancel' })).status).toBe(200);
  await expectCounts(back.body.rollout_id, { cancelled: 3 });

  expect(await verifyProjections(t.db, allProjections)).toEqual([]);
  // A count the projection got wrong is a difference verify reports: the rebuild counts the targets.
  await sql`UPDATE rollouts SET targets_cancelled = targets_cancelled + 1 WHERE rollout_id = ${id}`.execute(t.db);
  expect(await verifyProjections(t.db, allProjections)).toMatchObject([{ table: 'rollouts', key: { rollout_id: id }, live: { targets_cancelled: 4 }, rebuilt: { targets_cancelled: 3 } }]);
  await sql`UPDATE rollouts SET targets_cancelled = targets_cancelled - 1 WHERE rollout_id = ${id}`.execute(t.db);
});

test('G1 a rollout whose targets a Hub of the release before moved without their counts (a rolling upgrade) is counted again when it ends', async () => {
  await TestAgent.reporting(hub, 'edge-6');
  const id = (await asOperator('POST', '/api/v1/rollouts', { config_version: await version('counts-rolling'), targets: { nodes: ['edge-6'] }, batch_size: 1 })).body.rollout_id;
  await expectCounts(id, { applying: 1 });
  // What an older Hub's projection leaves: its batch started (the target moved), the row's counts as before.
  await sql`UPDATE rollouts SET targets_applying = 0, targets_waiting = 1 WHERE rollout_id = ${id}`.execute(t.db);
  expect((await act(id, { action: 'cancel' })).status).toBe(200);
  await expectCounts(id, { cancelled: 1 });
});

test('J3 a checkpoint written before the counts existed (its rollouts without them) rebuilds with every rollout counted', async () => {
  const [{ position }] = (await sql<{ position: number }>`SELECT max(position)::int AS position FROM events`.execute(t.db)).rows as [{ position: number }];
  const tables = await checkpointTables((await deriveCheckpoint(t.db, allProjections, position)).bytes);
  const older = new Map([...tables].map(([name, rows]) => [name, name === 'rollouts' ? rows.map(({ targets_waiting, targets_applying, targets_converged, targets_failed, targets_cancelled, ...row }) => row) : rows]));
  const checkpoint = openCheckpoint((await writeTables(position, older)).bytes);
  const live = (await sql<Record<string, unknown>>`SELECT rollout_id, targets_waiting, targets_applying, targets_converged, targets_failed, targets_cancelled FROM rollouts ORDER BY rollout_id`.execute(t.db)).rows;
  expect(live.length).toBeGreaterThan(1);
  const rebuilt = await t.db.transaction().execute(async (trx) => {
    const { schema } = await rebuild(trx, allProjections, { scratch: true, start: checkpoint });
    return (await sql<Record<string, unknown>>`SELECT rollout_id, targets_waiting, targets_applying, targets_converged, targets_failed, targets_cancelled FROM ${sql.id(schema, 'rollouts')} ORDER BY rollout_id`.execute(trx)).rows;
  });
  expect(rebuilt).toEqual(live);
});

test('G1 a run of targets converging in one pass moves them and the counts in one statement, to the rows the events give one by one', async () => {
  const at = (s: number) => new Date(Date.UTC(2026, 11, 1, 10, 0, s));
  const event = (type: string, data: Record<string, unknown>, s: number) => ({ type, data: { rollout_id: 'ro-run', ...data }, recordedAt: at(s), metadata: { actor: 'bob', correlation_id: 'c' } }) as any;
  const nodes = ['n-1', 'n-2', 'n-3'];
  const events = [
    event('RolloutCreated', { kind: 'rollout', config_version: 'cv', batch_size: 3, selector: null, targets: [...nodes, 'n-4'].map((node_id, i) => ({ node_id, batch: i < 3 ? 0 : 1 })), approval_id: null, rollback_of: null }, 0),
    event('RolloutBatchStarted', { batch: 0, intents: nodes.map((node_id) => ({ node_id, intent_id: `in-${node_id}` })) }, 1),
    // One node twice: its last event's time stays, and it counts once.
    ...['n-1', 'n-3', 'n-1', 'n-2'].map((node_id, i) => event('RolloutTargetConverged', { node_id, intent_id: `in-${node_id}` }, 2 + i)),
  ];
  const rowsAfter = (apply: (trx: any) => Promise<void>) =>
    t.db
      .transaction()
      .execute(async (trx) => {
        await apply(trx);
        const rollout = await trx.selectFrom('rollouts').select(['targets_waiting', 'targets_applying', 'targets_converged']).where('rollout_id', '=', 'ro-run').executeTakeFirstOrThrow();
        const targets = await trx.selectFrom('rollout_targets').select(['node_id', 'state', 'intent_id', 'updated_at']).where('rollout_id', '=', 'ro-run').orderBy('node_id').execute();
        throw Object.assign(new Error('rolled back'), { rows: { rollout, targets } });
      })
      .catch((e: { rows?: unknown }) => e.rows);
  const together = await rowsAfter((trx) => applyProjections([rolloutsProjection], trx, events));
  const oneByOne = await rowsAfter(async (trx) => {
    for (const e of events) await applyProjections([rolloutsProjection], trx, [e]);
  });
  expect(together).toEqual(oneByOne);
  expect(together).toMatchObject({ rollout: { targets_waiting: 1, targets_applying: 0, targets_converged: 3 }, targets: [{ node_id: 'n-1', updated_at: at(4) }, { node_id: 'n-2' }, { node_id: 'n-3' }, { node_id: 'n-4', state: 'waiting' }] });
});
