import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { hasRecovery, loadRollout } from './load.ts';

// What a rollout's passes read of its targets (SPEC G3, G4 progression; I3, I7-I10 recovery): the batches
// progression decides on, the targets settling recovery decides on, each through an index of its own.

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  // The rows were written here, not projected from the log: they go before the log is verified against them.
  await t.db.deleteFrom('rollout_targets').execute();
  await t.db.deleteFrom('rollouts').execute();
  await t.drop();
});

const BATCH = 256;
const BATCHES = 40;
const at = new Date('2026-12-01T00:00:00Z');

/** A rollout of BATCHES batches at its `current` one, its targets' rows as the projection writes them. */
async function rollout(id: string, current: number, recovering: string[] = []): Promise<void> {
  await t.db
    .insertInto('rollouts')
    .values({ rollout_id: id, kind: 'rollout', config_version: 'cv-1', state: 'applying', batch_size: BATCH, batches: BATCHES, current_batch: current, created_by: 'op', correlation_id: 'c', created_at: at, updated_at: at })
    .execute();
  await sql`INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at)
    SELECT ${id}, 'n-' || lpad(k::text, 5, '0'), k / ${BATCH}, 'waiting', ${at} FROM generate_series(0, ${BATCH * BATCHES - 1}) AS k`.execute(t.db);
  if (recovering.length > 0) {
    await t.db.updateTable('rollout_targets').set({ recovery_phase: 'failed', recovery_claim: 'pre_mutation', recovery_claim_generation: 1 }).where('rollout_id', '=', id).where('node_id', 'in', recovering).execute();
  }
  await sql`ANALYZE rollout_targets`.execute(t.db);
}

const nodes = (r: Awaited<ReturnType<typeof loadRollout>>) => r!.targets.map((x) => x.nodeId);
const batchNodes = (b: number) => Array.from({ length: BATCH }, (_, k) => `n-${String(b * BATCH + k).padStart(5, '0')}`);

test('G3 progression reads the current and next batches and every target with a recovery; settling reads only those with one', async () => {
  await rollout('ro-near', 7, ['n-00003', 'n-09000']);
  const near = await loadRollout(t.db, 'ro-near', false, 'near');
  expect(nodes(near)).toEqual(['n-00003', ...batchNodes(7), ...batchNodes(8), 'n-09000']);
  const recovering = await loadRollout(t.db, 'ro-near', false, 'recovering');
  expect(nodes(recovering)).toEqual(['n-00003', 'n-09000']);
  expect(recovering!.targets.map((x) => x.recovery.claim)).toEqual(['pre_mutation', 'pre_mutation']);
  expect((await loadRollout(t.db, 'ro-near', false))!.targets).toHaveLength(BATCH * BATCHES);
  expect(await hasRecovery(t.db, 'ro-near')).toBe(true);
});

test('I3 a rollout without a recovery has nothing to settle: the probe says so, and the selection is empty', async () => {
  await rollout('ro-plain', 0);
  expect(await hasRecovery(t.db, 'ro-plain')).toBe(false);
  expect(nodes(await loadRollout(t.db, 'ro-plain', false, 'recovering'))).toEqual([]);
  expect(await hasRecovery(t.db, 'no-such-rollout')).toBe(false);
});

const plan = async (statement: string) =>
  (await sql.raw<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`).execute(t.db)).rows.map((r) => r['QUERY PLAN']).join('\n');

test('G3 a pass of a large rollout reads its batches and recoveries by index, not by every target of the rollout', async () => {
  const targetsWhere = (where: string) => plan(`SELECT node_id FROM rollout_targets WHERE rollout_id = 'ro-near' AND ${where}`);
  expect(await targetsWhere(`batch IN (7, 8)`)).toContain('rollout_targets_by_batch');
  expect(await targetsWhere(`recovery_phase IS NOT NULL`)).toContain('rollout_targets_recovering');
  const both = await targetsWhere(`(batch IN (7, 8) OR recovery_phase IS NOT NULL)`);
  expect(both).toContain('rollout_targets_by_batch');
  expect(both).toContain('rollout_targets_recovering');
});

test('G4 a target is updated by its key, whichever rollout it is of: one newer than the statistics reads no other target', async () => {
  // Statistics taken above; this rollout's 10,240 targets come after them, as a new rollout's do.
  await sql`INSERT INTO rollouts SELECT 'ro-new', kind, config_version, state, paused_reason, batch_size, batches, 0, selector, created_by, NULL, rollback_of, rolled_back_by, correlation_id, created_at, updated_at FROM rollouts WHERE rollout_id = 'ro-plain'`.execute(t.db);
  await sql`INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at) SELECT 'ro-new', node_id, batch, state, updated_at FROM rollout_targets WHERE rollout_id = 'ro-plain'`.execute(t.db);
  const update = await plan(`UPDATE rollout_targets SET state = 'applying' WHERE rollout_id = 'ro-new' AND node_id = 'n-00003'`);
  expect(update).not.toContain('rollout_targets_by_batch');
  // Nor by the indexes of a page of targets (0027), led by the rollout like the key.
  expect(update).toContain('rollout_targets_pkey');
  expect(update).not.toMatch(/Seq Scan/);
  expect(update).toMatch(/Index Cond: .*node_id = 'n-00003'/);
});
