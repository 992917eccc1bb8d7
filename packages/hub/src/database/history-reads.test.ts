import { sql, type Compilable } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { rowsFetchedBy, rowsRead } from '../../../../test/support/plans.ts';
import { connect } from './connect.ts';
import { IntentQuery, intentsPage } from '../http/routes/intents.ts';
import { holdingTargetsQuery } from '../reconcile/holds.ts';
import { newestLifecycleIntents } from '../reconcile/load.ts';
import { loadRollout, nodesThatApplied } from '../rollouts/load.ts';

// The projection tables keep a fleet's history: every rollout's targets, every generation's intents. What runs
// per node, per rollout or per page reads by key, not through that history: every pass and lease of a node
// reads its holds, every report of a node applying a configuration its streams' newest lifecycle intents
// (SPEC I11, A10), settling a recovery its newest configuration (I7), an approval gate the nodes that applied a
// version (H9), GET /intents its newest page. A node of a year-old fleet has rollouts and generations by the hundred.

const NODES = 200;
const ROLLOUTS = 300;
const STREAMS = 5;
const GENERATIONS = 60;
const at = new Date('2026-12-01T00:00:00Z');

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  // Written as the projections write them, for the node and for others like it, and analysed.
  await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at)
    SELECT 'h-' || n, 'boot-1', ${at}, ${at}, ${at} FROM generate_series(1, ${NODES}) AS n`.execute(t.db);
  await sql`INSERT INTO rollouts (rollout_id, kind, config_version, state, batch_size, batches, current_batch, created_by, correlation_id, created_at, updated_at)
    SELECT 'ro-' || r, 'rollout', 'cv-1', 'converged', ${NODES}, 1, 0, 'op', 'c', ${at}, ${at} FROM generate_series(1, ${ROLLOUTS}) AS r`.execute(t.db);
  await sql`INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at)
    SELECT 'ro-' || r, 'h-' || n, 0, 'converged', ${at} FROM generate_series(1, ${ROLLOUTS}) AS r, generate_series(1, ${NODES}) AS n`.execute(t.db);
  // One of the node's rollouts left a recovery claim that holds it.
  await sql`UPDATE rollout_targets SET recovery_phase = 'failed', recovery_claim = 'unknown', recovery_claim_generation = 1
    WHERE rollout_id = 'ro-7' AND node_id = 'h-1'`.execute(t.db);
  await sql`INSERT INTO intents (intent_id, kind, stream_id, node_id, generation, desired_state, state, correlation_id, created_at, updated_at)
    SELECT 'i-' || n || '-' || s || '-' || g, 'lifecycle', 's-' || s, 'h-' || n, g, 'running',
      CASE WHEN g = ${GENERATIONS} THEN 'converged' ELSE 'superseded' END, 'c', ${at}, ${at}
    FROM generate_series(1, ${NODES}) AS n, generate_series(1, ${STREAMS}) AS s, generate_series(1, ${GENERATIONS}) AS g`.execute(t.db);
  // Each rollout applied a version of its own to every node.
  await sql`INSERT INTO intents (intent_id, kind, node_id, generation, config_version, rollout_id, state, correlation_id, created_at, updated_at)
    SELECT 'c-' || n || '-' || r, 'configuration', 'h-' || n, r, 'cv-' || r, 'ro-' || r, 'converged', 'c', ${at}, ${at}
    FROM generate_series(1, ${NODES}) AS n, generate_series(1, ${ROLLOUTS}) AS r`.execute(t.db);
  await sql`ANALYZE nodes, rollouts, rollout_targets, intents`.execute(t.db);
});
afterAll(async () => {
  // The rows were written here, not projected from the log: they go before the log is verified against them.
  await t.db.deleteFrom('intents').execute();
  await t.db.deleteFrom('rollout_targets').execute();
  await t.db.deleteFrom('rollouts').execute();
  await t.db.deleteFrom('nodes').execute();
  await t.drop();
});

test('SPEC I11 A10: a node\'s holds and its streams\' newest lifecycle intents are read by key, whatever the node\'s history', async () => {
  const database = connect(t.url, { max: 1 });
  try {
    const rows = async <R>(query: Compilable<R>) => (await database.db.executeQuery(query.compile())).rows;
    const holds = await rows(holdingTargetsQuery(database.db, ['h-1']));
    expect(holds.map((h) => [h.rollout_id, h.recovery_claim])).toEqual([['ro-7', 'unknown']]);
    const newest = await rows(newestLifecycleIntents(database.db, ['h-1']));
    expect(newest.map((i) => [i.stream_id, i.generation])).toEqual(Array.from({ length: STREAMS }, (_, s) => [`s-${s + 1}`, GENERATIONS]));

    // The holding target; each stream's newest intent, and a last probe past the last stream (EXPLAIN rounds a
    // repeated probe's rows per loop, so the count is within one of the streams). The nodes are one array.
    expect(await rowsRead(database.db, holdingTargetsQuery(database.db, ['h-1']), 'h-1', ['rollout_targets'])).toBe(1);
    expect(await rowsRead(database.db, newestLifecycleIntents(database.db, ['h-1']), '{h-1}', ['intents'])).toBeLessThanOrEqual(STREAMS + 1);
  } finally {
    await database.close();
  }
});

test('SPEC I7 H9: a recovering node\'s newest configuration and the nodes that applied a version are read by key, not through every configuration intent', async () => {
  const fleet = Array.from({ length: NODES }, (_, n) => `h-${n + 1}`);
  const recovery = await rowsFetchedBy(t.db, 'intents', (trx) => loadRollout(trx, 'ro-7', false, 'recovering'));
  expect(recovery.result!.targets.map((x) => [x.nodeId, x.recovery.newest?.generation])).toEqual([['h-1', ROLLOUTS]]);
  // The newest intent (the rollout's targets' own intents are joined by key; they have none here).
  expect(recovery.rows).toBe(1);
  const applied = await rowsFetchedBy(t.db, 'intents', (trx) => nodesThatApplied(trx, 'cv-150', fleet));
  expect(applied.result.size).toBe(fleet.length);
  expect(applied.rows).toBeLessThanOrEqual(fleet.length);
});

test('GET /intents reads its page from the newest intents, not by sorting every intent the table has kept', async () => {
  const first = await rowsFetchedBy(t.db, 'intents', (trx) => intentsPage(trx, IntentQuery.parse({ limit: '50' })).execute());
  expect(first.result).toHaveLength(51);
  expect(first.rows).toBeLessThanOrEqual(51);
});
