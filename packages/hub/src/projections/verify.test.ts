import {
  decideRegister,
  decideReplaceLabels,
  ok,
  type Labels,
  type NodeState,
  type Registration,
} from '@fleetplane/core';
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { runCommand, type Command, type PipelineDeps } from '../commands/pipeline.ts';
import { connect } from '../database/connect.ts';
import type { Tables } from '../database/tables.ts';
import { allProjections } from './all.ts';
import type { Projection } from './projection.ts';
import { lockNode } from '../nodes/load-node.ts';
import { dropSchema, rebuild } from './rebuild.ts';
import { verifyProjections } from './verify.ts';

let t: TestDatabase;
let deps: PipelineDeps;
// Every command runs a second later, so rows differ in their times and a replay must get each one right.
let time = Date.parse('2026-11-30T12:00:00.000Z');
const clock = { now: () => new Date((time += 1000)) };
const actor = { principal: 'alice', role: 'operator' as const, source: 'api' as const, correlationId: 'corr-j3' };

const register = (nodeId: string, bootId: string, capabilities: string[]): Command<NodeState | null, null> => {
  const registration: Registration = {
    node_id: nodeId,
    boot_id: bootId,
    agent_version: '1.0.0',
    capabilities,
    data_address: `10.0.0.${nodeId.length}:7000`,
    control_address: null,
  };
  return {
    name: 'RegisterNode',
    load: (trx) => lockNode(trx, registration.node_id),
    decide: (node) => ok({ events: decideRegister(node, registration), result: null }),
  };
};

const replaceLabels = (nodeId: string, labels: Labels): Command<NodeState | null, null> => ({
  name: 'ReplaceLabels',
  load: (trx) => lockNode(trx, nodeId),
  decide: (node) => {
    const decided = decideReplaceLabels(node, nodeId, labels);
    return decided.ok ? ok({ events: decided.value, result: null }) : decided;
  },
});

const run = async (command: Command<NodeState | null, null>) => {
  const r = await runCommand(deps, actor, command);
  if (!r.ok) throw new Error(r.error.message);
};

const nodes = async (schema = 'public') =>
  (await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(schema, 'nodes')} ORDER BY node_id`.execute(t.db)).rows;
const rebuildSchemas = async () =>
  (await sql<{ nspname: string }>`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild%'`.execute(t.db)).rows;

beforeAll(async () => {
  t = await createTestDatabase();
  deps = { db: t.db, boss: null, clock, projections: allProjections };
  await run(register('n-1', 'boot-a', ['network_shuffle']));
  await run(register('n-2', 'boot-a', []));
  await run(replaceLabels('n-1', { zone: 'eu-1', env: 'prod' }));
  await run(register('n-3', 'boot-a', ['network_shuffle', 'gpu']));
  await run(replaceLabels('n-2', { env: 'staging' }));
  // A restart re-registers: the upsert path, which must keep the labels set since.
  await run(register('n-1', 'boot-b', ['network_shuffle', 'gpu']));
  await run(replaceLabels('n-1', { zone: 'eu-2', env: 'prod', tier: 'edge' }));
  // What the commands left, so each test can tamper with the live table and have it put back.
  await sql`CREATE TABLE nodes_as_committed AS SELECT * FROM nodes`.execute(t.db);
});
afterEach(async () => {
  await sql`DELETE FROM nodes`.execute(t.db);
  await sql`INSERT INTO nodes SELECT * FROM nodes_as_committed`.execute(t.db);
});
afterAll(() => t.drop());

test('J3 a rebuild from the log reproduces the live nodes table exactly', async () => {
  // A small page size makes the replay cross page boundaries.
  const rebuilt = await rebuild(t.db, allProjections, { schema: 'rebuild_j3', pageSize: 2 });
  try {
    expect(rebuilt).toEqual({ schema: 'rebuild_j3', events: 7, through: expect.any(Number) });
    const live = await nodes();
    expect(live.map((n) => n.node_id)).toEqual(['n-1', 'n-2', 'n-3']);
    expect(live[0]).toMatchObject({ boot_id: 'boot-b', labels: { env: 'prod', tier: 'edge', zone: 'eu-2' } });
    expect(await nodes('rebuild_j3')).toEqual(live);
  } finally {
    await dropSchema(t.db, 'rebuild_j3');
  }
  expect(await rebuildSchemas()).toEqual([]);
});

test('J3 the verifier finds no difference between the live tables and the log', async () => {
  expect(await verifyProjections(t.db, allProjections)).toEqual([]);
  expect(await rebuildSchemas()).toEqual([]);
});

test('J3 an SRE login of fleetplane_reader verifies, without CREATE on the database: the rebuild is in temporary tables', async () => {
  const login = `fp_sre_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await sql`CREATE ROLE ${sql.id(login)} LOGIN PASSWORD ${sql.lit(password)} IN ROLE fleetplane_reader`.execute(t.db);
  const url = new URL(t.url);
  url.username = login;
  url.password = password;
  const sre = connect(url.toString(), { max: 1 });
  try {
    expect(await verifyProjections(sre.db, allProjections)).toEqual([]);
  } finally {
    await sre.close();
    await sql`DROP ROLE ${sql.id(login)}`.execute(t.db);
  }
});

test('J3 a live row edited outside the log is reported with its live and rebuilt values', async () => {
  await sql`UPDATE nodes SET labels = '{"env": "tampered"}' WHERE node_id = 'n-2'`.execute(t.db);
  const differences = await verifyProjections(t.db, allProjections);
  expect(differences).toEqual([
    {
      table: 'nodes',
      key: { node_id: 'n-2' },
      live: expect.objectContaining({ node_id: 'n-2', labels: { env: 'tampered' } }),
      rebuilt: expect.objectContaining({ node_id: 'n-2', labels: { env: 'staging' } }),
    },
  ]);
  // Everything else in the row is as the log derives it: only the edit differs.
  const { labels: _live, ...liveRest } = differences[0]!.live!;
  const { labels: _rebuilt, ...rebuiltRest } = differences[0]!.rebuilt!;
  expect(liveRest).toEqual(rebuiltRest);
});

test('J3 a live row deleted outside the log is reported with live = null', async () => {
  await sql`DELETE FROM nodes WHERE node_id = 'n-3'`.execute(t.db);
  expect(await verifyProjections(t.db, allProjections)).toEqual([
    {
      table: 'nodes',
      key: { node_id: 'n-3' },
      live: null,
      rebuilt: expect.objectContaining({ node_id: 'n-3', boot_id: 'boot-a', capabilities: ['gpu', 'network_shuffle'] }),
    },
  ]);
});

test('J3 a live row that no event derives is reported with rebuilt = null', async () => {
  await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at)
    VALUES ('n-ghost', 'boot-x', now(), now(), now())`.execute(t.db);
  expect(await verifyProjections(t.db, allProjections)).toEqual([
    { table: 'nodes', key: { node_id: 'n-ghost' }, live: expect.objectContaining({ boot_id: 'boot-x' }), rebuilt: null },
  ]);
});

test('J3 every difference is reported, in key order', async () => {
  await sql`UPDATE nodes SET maintenance = 'draining' WHERE node_id = 'n-3'`.execute(t.db);
  await sql`DELETE FROM nodes WHERE node_id = 'n-1'`.execute(t.db);
  const differences = await verifyProjections(t.db, allProjections);
  expect(differences.map((d) => [d.key.node_id, d.live?.maintenance ?? null, d.rebuilt?.maintenance ?? null])).toEqual([
    ['n-1', null, 'active'],
    ['n-3', 'draining', 'active'],
  ]);
});

test('J3 the verifier leaves no temporary schema behind when the rebuild fails', async () => {
  const broken: Projection = {
    name: 'broken',
    tables: { nodes: ['node_id'] },
    handles: ['NodeLabelsReplaced'],
    evolve: () => {
      throw new Error('evolve failed');
    },
  };
  await expect(verifyProjections(t.db, [broken])).rejects.toThrow('evolve failed');
  expect(await rebuildSchemas()).toEqual([]);
});
