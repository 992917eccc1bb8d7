import { sql } from 'kysely';
import { eventually, takeConfigAttempts, TestAgent } from '../../../../../test/support/fleet.ts';
import { testConfig, TOKENS } from '../../../../../test/support/hub.ts';
import { hubSuite } from '../../../../../test/support/hub-suite.ts';
import { rowsFetchedBy } from '../../../../../test/support/plans.ts';
import { batchCounts, readOneRolloutSummary, targetsPage } from '../views/rollout.ts';

// A rollout of 10,000 targets is read a page at a time (GET /rollouts/{id}/targets) and without its targets
// (GET /rollouts/{id}/summary): a console or script that shows a page reads that page, not the whole array.

const NODES = 40;
const suite = hubSuite({ config: testConfig(NODES, { mode: 'configuration' }) });
const nodes = Array.from({ length: NODES }, (_, i) => `edge-${i + 1}`);
const get = async (path: string) => suite.hub.call('GET', path, { token: TOKENS.viewer });
type Target = { node_id: string; batch: number; state: string };

/** Every item of a paged list, following next_cursor, and how many pages that took. */
async function pages(path: string): Promise<{ items: Target[]; pages: number }> {
  const items: Target[] = [];
  let cursor: string | null = null;
  let n = 0;
  do {
    const r = await get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    items.push(...r.body.items);
    cursor = r.body.next_cursor;
    n += 1;
  } while (cursor !== null);
  return { items, pages: n };
}

let rolloutId = '';
let firstAgent: TestAgent;

beforeAll(async () => {
  const { hub } = suite;
  const agents = await Promise.all(nodes.map((n) => TestAgent.reporting(hub, n)));
  firstAgent = agents[0]!;
  const asOperator = (method: string, path: string, body: unknown) => hub.call(method, path, { token: TOKENS.operator, body });
  const version = (await asOperator('POST', '/api/v1/config-versions', { content: 'workers: 4\n', format: 'yaml' })).body.config_version;
  const created = await asOperator('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes }, batch_size: 12 });
  expect(created.status).toBe(201);
  rolloutId = created.body.rollout_id;
});

test('G1 G5 a page of a later batch says what its targets wait on as GET /rollouts/{id} does: the current batch\'s open target, on no page of theirs', async () => {
  const whole = (await get(`/api/v1/rollouts/${rolloutId}`)).body.targets.filter((t: Target) => t.batch === 2);
  const later = (await get(`/api/v1/rollouts/${rolloutId}/targets?batch=2`)).body.items;
  expect(later).toEqual(whole);
  expect(later).toHaveLength(12);
  for (const t of later) expect(t.waiting_on).toMatchObject({ kind: 'batch', node_id: 'edge-1' });
});

/** The first batch's first target fails for good: the rollout pauses, with one failed target, 11 applying, 28 waiting. */
async function pausedByAFailure(): Promise<void> {
  if ((await get(`/api/v1/rollouts/${rolloutId}/summary`)).body.state === 'paused') return;
  const [attempt] = await takeConfigAttempts(firstAgent);
  const failed = await firstAgent.result(attempt.attempt_id, { outcome: 'failed', generation: attempt.generation, failure_class: 'permanent', code: 'invalid_config', message: 'parse error' });
  expect(failed.status).toBe(200);
  const summary = await eventually(async () => {
    const r = (await get(`/api/v1/rollouts/${rolloutId}/summary`)).body;
    return r.state === 'paused' ? r : undefined;
  });
  expect(summary.target_counts).toMatchObject({ failed: 1, applying: 11, waiting: 28 });
}

test('G5 GET /rollouts/{id}/targets pages the targets by batch then node id across batches, each item as GET /rollouts/{id} shows it', async () => {
  await pausedByAFailure();
  const full = await get(`/api/v1/rollouts/${rolloutId}`);
  expect(full.body.targets).toHaveLength(NODES);
  const paged = await pages(`/api/v1/rollouts/${rolloutId}/targets?limit=7`);
  expect(paged.pages).toBe(Math.ceil(NODES / 7));
  // The same items, what each waits on included, in the same order.
  expect(paged.items).toEqual(full.body.targets);
  expect(paged.items.map((t) => t.batch)).toEqual([...Array(12).fill(0), ...Array(12).fill(1), ...Array(12).fill(2), ...Array(4).fill(3)]);
});

test('G5 GET /rollouts/{id}/targets filters by state and batch, paging across batches', async () => {
  await pausedByAFailure();
  const full = (await get(`/api/v1/rollouts/${rolloutId}`)).body.targets as Target[];
  const waiting = await pages(`/api/v1/rollouts/${rolloutId}/targets?state=waiting&limit=10`);
  expect(waiting.pages).toBe(3);
  expect(waiting.items).toEqual(full.filter((t) => t.state === 'waiting'));
  expect(new Set(waiting.items.map((t) => t.batch))).toEqual(new Set([1, 2, 3]));
  const failed = await get(`/api/v1/rollouts/${rolloutId}/targets?state=failed`);
  expect(failed.body).toEqual({ items: [expect.objectContaining({ node_id: 'edge-1', state: 'failed', failure_code: 'invalid_config' })], next_cursor: null });
  const second = await pages(`/api/v1/rollouts/${rolloutId}/targets?batch=1&limit=5`);
  expect(second.items).toEqual(full.filter((t) => t.batch === 1));
  expect((await get(`/api/v1/rollouts/${rolloutId}/targets?batch=1&state=failed`)).body).toEqual({ items: [], next_cursor: null });
});

test('G5 GET /rollouts/{id}/summary is the rollout as the list shows it, without its targets, and its targets counted in each batch', async () => {
  await pausedByAFailure();
  const summary = await get(`/api/v1/rollouts/${rolloutId}/summary`);
  expect(summary.status).toBe(200);
  expect(summary.body).not.toHaveProperty('targets');
  const { batch_counts: batchCounts, ...asListed } = summary.body;
  const listed = (await get('/api/v1/rollouts')).body.items.find((r: { rollout_id: string }) => r.rollout_id === rolloutId);
  expect(asListed).toEqual(listed);
  const { targets, ...withoutTargets } = (await get(`/api/v1/rollouts/${rolloutId}`)).body;
  expect(asListed).toEqual(withoutTargets);
  expect(batchCounts).toEqual(
    [0, 1, 2, 3].map((b) => Object.fromEntries(['waiting', 'applying', 'converged', 'failed', 'cancelled'].map((s) => [s, targets.filter((t: Target) => t.batch === b && t.state === s).length]))),
  );
  expect(batchCounts[0]).toEqual({ waiting: 0, applying: 11, converged: 0, failed: 1, cancelled: 0 });
});

test('G5 I5 GET /rollouts/{id}/targets?recovery=holding pages the live targets that hold the rollout: a restore in flight or a claim that may have moved them', async () => {
  await pausedByAFailure();
  const db = suite.t.db;
  await sql`UPDATE rollout_targets SET recovery_phase = 'restoring' WHERE rollout_id = ${rolloutId} AND node_id = 'edge-14'`.execute(db);
  await sql`UPDATE rollout_targets SET recovery_phase = 'failed', recovery_claim = 'unknown', recovery_claim_at = now() WHERE rollout_id = ${rolloutId} AND node_id = 'edge-30'`.execute(db);
  // A pre-mutation claim holds nothing.
  await sql`UPDATE rollout_targets SET recovery_phase = 'failed', recovery_claim = 'pre_mutation', recovery_claim_at = now() WHERE rollout_id = ${rolloutId} AND node_id = 'edge-31'`.execute(db);
  try {
    const held = await pages(`/api/v1/rollouts/${rolloutId}/targets?recovery=holding&limit=1`);
    expect(held.items.map((t) => t.node_id)).toEqual(['edge-14', 'edge-30']);
    expect(held.pages).toBe(2);
    expect((await get(`/api/v1/rollouts/${rolloutId}/targets?recovery=held`)).status).toBe(400);
  } finally {
    await sql`UPDATE rollout_targets SET recovery_phase = NULL, recovery_claim = NULL, recovery_claim_at = NULL WHERE rollout_id = ${rolloutId}`.execute(db);
  }
});

test('G5 a bad cursor, state or batch is 400 invalid_request; an unknown rollout is 404 rollout_not_found', async () => {
  for (const query of ['cursor=nonsense', 'cursor=x%7Cedge-01', 'cursor=1%7C', 'state=stuck', 'batch=-1', 'batch=one', 'limit=0']) {
    const r = await get(`/api/v1/rollouts/${rolloutId}/targets?${query}`);
    expect([query, r.status, r.body.code]).toEqual([query, 400, 'invalid_request']);
  }
  for (const path of ['/api/v1/rollouts/ro_nope/targets', '/api/v1/rollouts/ro_nope/summary']) {
    const r = await get(path);
    expect([path, r.status, r.body.code]).toEqual([path, 404, 'rollout_not_found']);
  }
});

test('G5 a page of a 10,000-target rollout reads its page of target rows by index, filtered by state, holding or not; its summary counts them by batch from an index; the whole rollout is read and answered a chunk at a time; a new rollout\'s page is taken before its rows are joined', async () => {
  const db = suite.t.db;
  // A rollout of 10,000 targets written into the tables: 256 a batch, one in a thousand failed.
  await sql`
    INSERT INTO rollouts SELECT (jsonb_populate_record(NULL::rollouts, to_jsonb(r) || '{"rollout_id": "ro_big", "state": "converged", "batch_size": 256, "batches": 40}')).*
    FROM rollouts r WHERE rollout_id = ${rolloutId}`.execute(db);
  await sql`
    INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at)
    SELECT 'ro_big', 'node-' || lpad(i::text, 5, '0'), i / 256, CASE WHEN i % 1000 = 999 THEN 'failed' ELSE 'converged' END, now()
    FROM generate_series(0, 9999) i`.execute(db);
  // Other rollouts' targets, 1,000 each.
  await sql`
    INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at)
    SELECT 'ro_other_' || (i / 1000), 'node-' || lpad(i::text, 5, '0'), (i % 1000) / 256, 'converged', now()
    FROM generate_series(0, 49999) i`.execute(db);
  await sql`ANALYZE rollout_targets`.execute(db);
  try {
    await readsFreshPage(db);
    await readsPages(db);
  } finally {
    // Rows no event wrote: the log would not verify with them.
    await sql`DELETE FROM rollout_targets WHERE rollout_id IN ('ro_big', 'ro_fresh') OR rollout_id LIKE 'ro_other_%'`.execute(db);
    await sql`DELETE FROM rollouts WHERE rollout_id = 'ro_big'`.execute(db);
  }
});

interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  Plans?: PlanNode[];
}
const joins = (node: PlanNode): PlanNode[] => [...(/Join|Nested Loop/.test(node['Node Type']) ? [node] : []), ...(node.Plans ?? []).flatMap(joins)];

/**
 * A rollout's page is taken before its rows are joined to their intents and nodes, whatever plan PostgreSQL
 * makes: one made without statistics of a new rollout (expecting a target or two of it) scanned its targets
 * unordered, joined all 10,000 and sorted them for one page. Index scans are turned off here to make that
 * plan: the page's joins still take only its rows.
 */
async function readsFreshPage(db: typeof suite.t.db): Promise<void> {
  await sql`
    INSERT INTO rollout_targets (rollout_id, node_id, batch, state, updated_at)
    SELECT 'ro_fresh', 'node-' || lpad(i::text, 5, '0'), i / 256, 'waiting', now()
    FROM generate_series(0, 9999) i`.execute(db);
  const page = targetsPage(db, 'ro_fresh', { limit: 100 });
  const plan = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_indexscan = off`.execute(trx);
    const [row] = (await sql<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>`EXPLAIN (ANALYZE, FORMAT JSON) ${page}`.execute(trx)).rows;
    return row!['QUERY PLAN'][0].Plan;
  });
  expect(joins(plan).length).toBeGreaterThan(0);
  expect(joins(plan).map((j) => j['Actual Rows'])).toEqual(joins(plan).map(() => 101));
  expect((await page.execute()).map((t) => t.node_id)).toEqual(Array.from({ length: 101 }, (_, i) => `node-${String(i).padStart(5, '0')}`));
}

async function readsPages(db: typeof suite.t.db): Promise<void> {
  const read = (query: Parameters<typeof targetsPage>[2]) => rowsFetchedBy(db, 'rollout_targets', (trx) => targetsPage(trx, 'ro_big', query).execute());
  const first = await read({ limit: 100 });
  expect(first.result.map((t) => t.node_id)).toEqual(Array.from({ length: 101 }, (_, i) => `node-${String(i).padStart(5, '0')}`));
  expect(first.rows).toBeLessThanOrEqual(101);
  const later = await read({ limit: 100, cursor: { batch: 20, nodeId: 'node-05200' } });
  expect(later.result[0]).toMatchObject({ batch: 20, node_id: 'node-05201' });
  expect(later.rows).toBeLessThanOrEqual(101);
  const failed = await read({ limit: 100, state: 'failed' });
  expect(failed.result.map((t) => t.node_id)).toEqual(Array.from({ length: 10 }, (_, i) => `node-${String(i * 1000 + 999).padStart(5, '0')}`));
  expect(failed.rows).toBeLessThanOrEqual(10);
  // The few that hold it, found by `rollout_targets_recovering`: not by reading the rollout's targets in order.
  await sql`UPDATE rollout_targets SET recovery_phase = 'restoring' WHERE rollout_id = 'ro_big' AND node_id IN ('node-00042', 'node-07042')`.execute(db);
  await sql`ANALYZE rollout_targets`.execute(db);
  const holding = await read({ limit: 100, recovery: 'holding' });
  expect(holding.result.map((t) => t.node_id)).toEqual(['node-00042', 'node-07042']);
  expect(holding.rows).toBeLessThanOrEqual(2);
  // Its targets counted by batch in the database, from the index alone: among other rollouts' targets, as a
  // Hub's table holds them, once a vacuum marked their pages all visible.
  await sql`VACUUM ANALYZE rollout_targets`.execute(db);
  const counted = await rowsFetchedBy(db, 'rollout_targets', (trx) => readOneRolloutSummary(trx, 'ro_big'));
  expect(counted.result.batch_counts).toHaveLength(40);
  expect(counted.result.batch_counts[0]).toEqual({ waiting: 0, applying: 0, converged: 256, failed: 0, cancelled: 0 });
  expect(counted.result.batch_counts[3]).toEqual({ waiting: 0, applying: 0, converged: 255, failed: 1, cancelled: 0 });
  expect(counted.result.batch_counts[39]).toEqual({ waiting: 0, applying: 0, converged: 15, failed: 1, cancelled: 0 });
  expect(counted.result.batch_counts.reduce((n, c) => n + c.converged + c.failed, 0)).toBe(10_000);
  expect(counted.rows).toBeLessThan(1000);
  const [plan] = (await sql<{ 'QUERY PLAN': [{ Plan: { Plans: [{ 'Node Type': string; 'Index Name': string }] } }] }>`EXPLAIN (FORMAT JSON) ${batchCounts(db, 'ro_big')}`.execute(db)).rows;
  expect(plan!['QUERY PLAN'][0].Plan.Plans[0]).toMatchObject({ 'Node Type': 'Index Only Scan', 'Index Name': 'rollout_targets_in_order_by_state' });
  // Read whole, its targets are read and written a chunk at a time (http/snapshot-read.ts): chunked, every target in order.
  const whole = await get('/api/v1/rollouts/ro_big');
  expect(whole.status).toBe(200);
  expect(whole.headers.get('transfer-encoding')).toBe('chunked');
  expect(whole.body.targets).toHaveLength(10_000);
  expect(whole.body.targets[9_999]).toMatchObject({ node_id: 'node-09999', batch: 39, state: 'failed' });
  // Every target across the chunks' edges, as the pages list them.
  expect(whole.body.targets).toEqual((await pages('/api/v1/rollouts/ro_big/targets?limit=100')).items);
}
