import { AttemptResult, DesiredStream, Report } from '@fleetplane/core';
import { sql } from 'kysely';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { explainExecute } from '../../../../test/support/plans.ts';
import { forgetFleet, writeFleet } from '../../../../test/support/written-fleet.ts';
import type { RoundTrip } from '../../../../test/support/round-trips.ts';
import { agentActor, mustRun, oneThenTogether, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import { createPipeline, runCommand, type Actor, type Command } from '../commands/pipeline.ts';
import { connect } from '../database/connect.ts';
import { registerNode } from '../nodes/register-node.ts';
import { leaseAttempts } from './lease-attempts.ts';
import { ingestReport } from './ingest-report.ts';
import { reconcileQueues } from './queues.ts';
import { reconcileNode } from './reconcile-node.ts';
import { recordResult } from './record-result.ts';
import { writeDesired } from './write-desired.ts';

// The commands on the way from a node's registration to an attempt's result each load in one round trip, BEGIN
// included: under load every round trip waits to be scheduled, and a desired write answers only after it
// has reconciled its nodes (docs/decisions.md, "Fewer round trips per transaction").
const suite = pipelineSuite(reconcileQueues);
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };
const agent: Actor = { principal: 'l-1-agent', role: 'agent', source: 'agent', correlationId: 'corr-agent' };

/** The command run alone, what reached the server, and its result. */
async function recorded<S, R>(actor: Actor, command: Command<S, R>): Promise<{ roundTrips: RoundTrip[]; result: R }> {
  let result: R | undefined;
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const outcome = await runCommand({ ...suite.deps, db }, actor, command);
    if (!outcome.ok) throw new Error(outcome.error.message);
    result = outcome.value.result;
  });
  return { roundTrips, result: result! };
}

/** A fleet's history: many nodes and streams, most attempts done (support/written-fleet.ts); HISTORY rows of each. */
const HISTORY = 2000;
const history = { prefix: 'old', size: HISTORY, intentState: 'converged', attemptState: 'succeeded' };

test('a registration and a desired write are their load, their append and their commit; the reconcile pass, the lease and the result append with their commit', async () => {
  const registered = await recorded(agent, registerNode({ node_id: 'l-1', boot_id: 'boot-1', agent_version: null, capabilities: [], data_address: null, control_address: null }));
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['l-1'] } });

  const write = await recorded(operator, writeDesired({ streamId: 'l-s', desired, actionId: null, ifMatch: null, overrideHold: false }));
  expect(write.result.nodes).toEqual(['l-1']);
  const pass = await recorded(operator, reconcileNode('l-1', 'lifecycle'));
  expect(pass.result.queued).toBe(1);
  const lease = await recorded(agent, leaseAttempts('l-1', 'lifecycle', 30_000));
  expect(lease.result).toHaveLength(1);
  const outcome = AttemptResult.parse({ outcome: 'succeeded', generation: 1 });
  const result = await recorded(agent, recordResult(lease.result[0]!.attemptId, 'l-1', outcome, { baseMs: 1000, maxMs: 60_000 }, 0.5));

  // BEGIN and the load are one script. Appends checked against stream versions, or of several events to a
  // stream, answer before the commit (a prepared statement, run by name); new events, one per stream, go with
  // the commit (event-store/append.ts, appendWithCommit), as the projections and job inserts always do.
  for (const { roundTrips } of [registered, write]) expect(roundTrips).toEqual(['simple', 'simple', 'simple']);
  for (const { roundTrips } of [pass, lease, result]) expect(roundTrips).toEqual(['simple', 'simple']);
});

test('SPEC C1: a reconcile pass reads by prepared statements whose one plan, made for any node, still takes the indexes', async () => {
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['l-2'] } });
  await runCommand(suite.deps, agent, registerNode({ node_id: 'l-2', boot_id: 'boot-1', agent_version: null, capabilities: [], data_address: null, control_address: null }));
  await runCommand(suite.deps, operator, writeDesired({ streamId: 'l-s2', desired, actionId: null, ifMatch: null, overrideHold: false }));
  const database = connect(suite.t.url, { max: 1 });
  try {
    // PostgreSQL plans a prepared statement for its parameters' values five times, then keeps one plan for all
    // values if that plan is no costlier: from then on a pass plans nothing.
    for (let i = 0; i < 7; i++) expect((await runCommand({ ...suite.deps, db: database.db }, operator, reconcileNode('l-2', 'lifecycle'))).ok).toBe(true);
    const { rows } = await sql<{ name: string; generic_plans: string }>`
      SELECT name, generic_plans FROM pg_prepared_statements WHERE name LIKE 'reconcile%' OR name LIKE 'mode%' ORDER BY name`.execute(database.db);
    const planned = ['mode_act', ...['active', 'holds', 'intents', 'node', 'observed', 'peers', 'streams', 'versions', 'waiting'].map((n) => `reconcile_${n}`)];
    expect(rows.filter((r) => Number(r.generic_plans) > 0).map((r) => r.name)).toEqual(planned);
    // The one plan of the intents' read still finds the node's live intents by their partial index: its states
    // are literals in the text, which is how the planner knows the index's predicate holds.
    await sql`SET plan_cache_mode = force_generic_plan`.execute(database.db);
    const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN EXECUTE reconcile_intents('l-2', 'l-2')`.execute(database.db);
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('intents_live_by_node');
    expect(text).not.toMatch(/Seq Scan on intents/);
  } finally {
    await database.close();
  }
});

test('SPEC A9 C1: a lone lease, result and report load by prepared statements, and they and the projections they apply each keep one plan for every node', async () => {
  await writeFleet(suite.t.db, history);
  const database = connect(suite.t.url, { max: 1 });
  const on = { ...suite.deps, db: database.db };
  try {
    // Seven nodes each through a whole cycle, on one connection: more than the five runs after which PostgreSQL
    // keeps one plan of a prepared statement for all its parameters' values, if that plan is no costlier.
    for (let i = 1; i <= 7; i++) {
      const node = `k-${i}`;
      await registerAgent(on, node);
      const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [node] } });
      await mustRun(on, operator, writeDesired({ streamId: `${node}-s`, desired, actionId: null, ifMatch: null, overrideHold: false }));
      expect((await mustRun(on, operator, reconcileNode(node, 'lifecycle'))).queued).toBe(1);
      const [attempt] = await mustRun(on, agentActor(node), leaseAttempts(node, 'lifecycle', 30_000));
      const outcome = AttemptResult.parse({ outcome: 'succeeded', generation: 1 });
      await mustRun(on, agentActor(node), recordResult(attempt!.attemptId, node, outcome, { baseMs: 1000, maxMs: 60_000 }, 0.5));
      const report = (seq: number) => ingestReport(Report.parse({ node_id: node, boot_id: 'boot-1', report_seq: seq, streams: [{ stream_id: `${node}-s`, generation: 1, state: 'running' }] }));
      // The first report proves the attempt (the intent converges); the second repeats it (only the marks move).
      expect((await mustRun(on, agentActor(node), report(1))).convergedAfterMs).toHaveLength(1);
      expect((await mustRun(on, agentActor(node), report(2))).accepted).toBe(true);
    }
    const { rows } = await sql<{ name: string; generic_plans: string; custom_plans: string }>`
      SELECT name, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY name`.execute(database.db);
    const kept = rows.filter((r) => Number(r.generic_plans) > 0).map((r) => r.name);
    const loads = ['holds', 'intents', 'nodes', 'queued'].map((n) => `lease_${n}`);
    loads.push('mode_act', 'report_intents', 'report_nodes', 'result_attempts', 'result_intents', 'result_marks');
    expect(kept).toEqual(expect.arrayContaining(loads));
    // Nor are the statements of the projections they apply planned again on each run.
    const replanned = rows.filter((r) => Number(r.generic_plans) === 0 && Number(r.custom_plans) >= 7).map((r) => r.name);
    expect(replanned.filter((name) => /^(lease|result|report|projection)_/.test(name))).toEqual([]);
  } finally {
    await database.close();
    await forgetFleet(suite.t.db, 'old');
  }
});

test('SPEC A9 C1: leases, results, reports, desired writes and passes loaded together find their rows by key, in the plans made for their batch and in the one plan for any batch', async () => {
  await writeFleet(suite.t.db, history);
  const database = connect(suite.t.url, { max: 1 });
  const on = { ...suite.deps, db: database.db };
  const nodes = ['g-1', 'g-2', 'g-3', 'g-4', 'g-5', 'g-6', 'g-7'];
  try {
    for (const node of nodes) {
      await registerAgent(on, node);
      const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [node] } });
      await mustRun(on, operator, writeDesired({ streamId: `${node}-s`, desired, actionId: null, ifMatch: null, overrideHold: false }));
      expect((await mustRun(on, operator, reconcileNode(node, 'lifecycle'))).queued).toBe(1);
    }
    // One lane: the first command of a kind runs alone, then the six load together, their keys as one array.
    const pipeline = createPipeline(on, { lanes: 1 });
    const byEach = async <S, R>(command: (node: string, i: number) => Command<S, R>, actor = agentActor): Promise<R[]> =>
      (await oneThenTogether(nodes, (node, i) => pipeline.run(actor(node), command(node, i)))).map((o) => {
        if (!o.ok) throw new Error(o.error.message);
        return o.value.result;
      });
    // Rows the server counts as read by sequential scans of the fleet's tables: the pipeline's session flushes its
    // counts when it next goes idle, and they are read from another session. A scan of one of them now reads the
    // whole history; another session's counts of scans made before the history was written (a few rows) may be
    // reported meanwhile.
    const scanned = async () => {
      await sql`SELECT pg_stat_force_next_flush()`.execute(database.db);
      await sql`SELECT 1`.execute(database.db);
      const { rows } = await sql<{ relname: string; read: string }>`
        SELECT relname, seq_tup_read AS read FROM pg_stat_user_tables WHERE relname IN ('nodes', 'intents', 'attempts') ORDER BY relname`.execute(suite.t.db);
      return new Map(rows.map((r) => [r.relname, Number(r.read)]));
    };
    const before = await scanned();
    const leased = await byEach((node) => leaseAttempts(node, 'lifecycle', 30_000));
    const outcome = AttemptResult.parse({ outcome: 'succeeded', generation: 1 });
    await byEach((node, i) => recordResult(leased[i]![0]!.attemptId, node, outcome, { baseMs: 1000, maxMs: 60_000 }, 0.5));
    const report = (node: string, seq: number) => ingestReport(Report.parse({ node_id: node, boot_id: 'boot-1', report_seq: seq, streams: [{ stream_id: `${node}-s`, generation: 1, state: 'running' }] }));
    // The first report proves the attempt (the intent converges); the second repeats it (only the marks move).
    expect((await byEach((node) => report(node, 1))).map((r) => r.convergedAfterMs.length)).toEqual(nodes.map(() => 1));
    expect((await byEach((node) => report(node, 2))).map((r) => r.accepted)).toEqual(nodes.map(() => true));
    const stopped = (node: string) => DesiredStream.parse({ desired_state: 'stopped', spec: { command: 'sleep' }, placement: { nodes: [node] } });
    await byEach((node) => writeDesired({ streamId: `${node}-s`, desired: stopped(node), actionId: null, ifMatch: null, overrideHold: false }), () => operator);
    await byEach((node) => reconcileNode(node, 'lifecycle'), () => operator);
    // Whatever their parameters (arrays of keys, a batch's rows as JSON), no statement of these batches scanned a table.
    const after = await scanned();
    expect([...after].filter(([table, read]) => read - before.get(table)! >= HISTORY)).toEqual([]);

    // Every statement the session prepared, the batches' among them, and their projections' and appends'.
    const { rows: all } = await sql<{ name: string; types: string[] }>`
      SELECT name, parameter_types::text[] AS types FROM pg_prepared_statements ORDER BY name`.execute(database.db);
    // The first command of each kind ran alone, by statements keyed by one node, attempt or stream.
    const alone = ['lease_intents', 'lease_nodes', 'lease_queued', 'report_intents', 'report_nodes', 'result_attempts', 'result_intents', 'result_marks'];
    const batches = [...alone.map((name) => name.replace(/^(\w+?)_/, '$1s_')), 'desired_writes_streams', 'passes_intents', 'passes_node'];
    expect(all.map((r) => r.name)).toEqual(expect.arrayContaining([...alone, ...batches]));
    // PostgreSQL plans a batch's statement for its keys until the plan for any keys, which takes an array for ten,
    // looks no costlier (larger batches): that plan too finds them by index. Each statement keyed by nodes,
    // streams or attempts (its parameters text), run with two keys.
    await sql`SET plan_cache_mode = force_generic_plan`.execute(database.db);
    const keyedByText = all.filter((r) => r.types.every((t) => t === 'text' || t === 'text[]'));
    expect(keyedByText.map((r) => r.name)).toEqual(expect.arrayContaining([...alone, ...batches]));
    for (const { name } of keyedByText) {
      const plan = (await explainExecute<{ 'QUERY PLAN': string }>(database.db, name, '{g-1,g-2}')).map((r) => r['QUERY PLAN']).join('\n');
      expect([name, plan]).not.toEqual([name, expect.stringMatching(/Seq Scan on (nodes|intents|attempts)\b/)]);
    }
  } finally {
    await database.close();
    await forgetFleet(suite.t.db, 'old');
  }
});

test('SPEC A2 E1: the nodes a desired write places its stream on, and a split placement\'s peers, are found by key in the one plan kept for any stream, not by scanning every node', async () => {
  // A fleet of many nodes, analysed: a plan that joins the placement's nodes by a hash scans them all.
  await sql`INSERT INTO nodes (node_id, boot_id, last_seen_at, registered_at, updated_at)
    SELECT 'many-' || n, 'boot-1', now(), now(), now() FROM generate_series(1, 5000) AS n`.execute(suite.t.db);
  await sql`ANALYZE nodes`.execute(suite.t.db);
  const database = connect(suite.t.url, { max: 1 });
  const on = { ...suite.deps, db: database.db };
  try {
    for (let i = 1; i <= 7; i++) {
      const nodes = [`p-${i}a`, `p-${i}b`];
      for (const node of nodes) await registerAgent(on, node);
      const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes, split: true } });
      expect((await mustRun(on, operator, writeDesired({ streamId: `p-${i}-s`, desired, actionId: null, ifMatch: null, overrideHold: false }))).nodes).toEqual(nodes);
      // Whether the split can run (its peers' data addresses) is not this test's: only what the pass reads.
      await mustRun(on, operator, reconcileNode(nodes[0]!, 'lifecycle'));
    }
    await sql`SET plan_cache_mode = force_generic_plan`.execute(database.db);
    // Each statement names its one key wherever it needs it: as many parameters, all that key.
    const planOf = async (name: string, key: string) =>
      (await explainExecute<{ 'QUERY PLAN': string }>(database.db, name, key)).map((r) => r['QUERY PLAN']).join('\n');
    const registered = await planOf('desired_write_registered', 'p-1-s');
    expect(registered).toContain('nodes_pkey');
    expect(registered).not.toMatch(/Seq Scan on nodes/);
    const peers = await planOf('reconcile_peers', 'p-1a');
    expect(peers).toContain('nodes_pkey');
    expect(peers).not.toMatch(/Seq Scan on nodes/);
  } finally {
    await database.close();
    await sql`DELETE FROM nodes WHERE node_id LIKE 'many-%'`.execute(suite.t.db);
  }
});
