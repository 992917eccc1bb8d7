import { DesiredStream, Report } from '@fleetplane/core';
import { sql } from 'kysely';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { agentActor, mustRun, oneThenTogether, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import { createPipeline, type Actor, type Command } from '../commands/pipeline.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { ingestReport } from './ingest-report.ts';
import { reconcileQueues } from './queues.ts';
import { writeDesired } from './write-desired.ts';

// Reports that share a transaction are loaded, appended and projected together: SPEC A8, A9, J3 hold as if
// each ran alone.
const suite = pipelineSuite(reconcileQueues);
const agent = agentActor;

const must = <S, R>(actor: Actor, command: Command<S, R>) => mustRun(suite.deps, actor, command);
const register = (node: string) => registerAgent(suite.deps, node);
const report = (node: string, seq: number, generation = 1) =>
  ingestReport(
    Report.parse({ node_id: node, boot_id: 'boot-1', report_seq: seq, streams: [{ stream_id: `${node}-s`, generation, state: 'running' }] }),
  );
const marks = async (prefix: string) =>
  (
    await sql<{ node_id: string; last_report_seq: number | null }>`
      SELECT node_id, last_report_seq FROM nodes WHERE node_id LIKE ${prefix + '%'} ORDER BY node_id`.execute(suite.t.db)
  ).rows.map((r) => [r.node_id, r.last_report_seq === null ? null : Number(r.last_report_seq)]);
const reportTransactions = async (prefix: string) =>
  Number(
    (await sql<{ n: string }>`SELECT count(DISTINCT tx_id) n FROM events WHERE type = 'NodeReported' AND stream_id LIKE ${'node:' + prefix + '%'}`.execute(suite.t.db))
      .rows[0]!.n,
  );

test('A8 A9 reports loaded together: a stale one is ignored, an unregistered node refused, the others commit and converge', async () => {
  for (const node of ['b-1', 'b-2', 'b-3', 'b-4']) await register(node);
  await must(agent('b-1'), report('b-1', 5));
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['b-2'] } });
  await must({ ...agent('op'), role: 'operator', source: 'api' }, writeDesired({ streamId: 'b-2-s', desired, actionId: null, ifMatch: null, overrideHold: false }));

  const pipeline = createPipeline(suite.deps, { lanes: 1 });
  const outcomes = await Promise.all([
    pipeline.run(agent('b-0'), report('b-0', 1)), // never registered; sent in one turn, the seven share a transaction
    pipeline.run(agent('b-1'), report('b-1', 4)), // stale: 4 is not after 5
    pipeline.run(agent('b-2'), report('b-2', 1)), // proves b-2's intent
    pipeline.run(agent('b-9'), report('b-9', 1)), // never registered
    pipeline.run(agent('b-3'), report('b-3', 1)),
    pipeline.run(agent('b-3'), report('b-3', 2)), // the same node again: loaded after the first one's effects
    pipeline.run(agent('b-4'), report('b-4', 1)),
  ]);
  expect(outcomes.map((o) => (o.ok ? o.value.result.accepted : o.error.code))).toEqual([
    'node_not_registered',
    false,
    true,
    'node_not_registered',
    true,
    true,
    true,
  ]);
  expect(await marks('b-')).toEqual([
    ['b-1', 5],
    ['b-2', 1],
    ['b-3', 2],
    ['b-4', 1],
  ]);
  expect(outcomes[2]!.ok && outcomes[2]!.value.events.map((e) => e.type)).toEqual(['NodeReported', 'IntentConverged']);
  expect((await suite.t.db.selectFrom('intents').select('state').where('node_id', '=', 'b-2').executeTakeFirstOrThrow()).state).toBe('converged');
  // Sent together, the accepted reports shared one transaction: b-1's first report's and theirs.
  expect(await reportTransactions('b-')).toBe(2);
});

test('a batch of repeated reports is two round trips: BEGIN with its locks, then its append and its marks with COMMIT', async () => {
  for (const node of ['r-1', 'r-2', 'r-3']) {
    await register(node);
    await must(agent(node), report(node, 1));
  }
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const pipeline = createPipeline({ ...suite.deps, db }, { lanes: 1 });
    const outcomes = await oneThenTogether(['r-1', 'r-2', 'r-3'], (node) => pipeline.run(agent(node), report(node, 2)));
    expect(outcomes.map((o) => o.ok && o.value.result.accepted)).toEqual([true, true, true]);
  });
  // One alone, then the two together: two transactions of two round trips each, BEGIN with the locks, then
  // the append and the marks with COMMIT.
  expect(roundTrips).toEqual(['simple', 'simple', 'simple', 'simple']);
  expect(await marks('r-')).toEqual([
    ['r-1', 2],
    ['r-2', 2],
    ['r-3', 2],
  ]);
});

test('J3 a rebuild reproduces report marks and observed streams after reports projected in batches', async () => {
  for (const node of ['j-1', 'j-2', 'j-3']) await register(node);
  const pipeline = createPipeline(suite.deps, { lanes: 1 });
  // Repeated and changed reports of the same nodes, interleaved, several to a transaction.
  const runs = [];
  for (let seq = 1; seq <= 6; seq++) {
    for (const node of ['j-1', 'j-2', 'j-3']) runs.push(pipeline.run(agent(node), report(node, seq, node === 'j-2' && seq > 3 ? 2 : 1)));
  }
  expect((await Promise.all(runs)).every((o) => o.ok && o.value.result.accepted)).toBe(true);
  expect(await marks('j-')).toEqual([
    ['j-1', 6],
    ['j-2', 6],
    ['j-3', 6],
  ]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('A6 a fault in a shared batch of reports runs each again alone: only the faulty one fails', async () => {
  for (const node of ['f-1', 'f-2', 'f-3', 'f-4']) await register(node);
  await sql`CREATE FUNCTION fail_report() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.node_id = 'f-3' AND NEW.last_report_seq IS NOT NULL THEN RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$`.execute(suite.t.db);
  await sql`CREATE TRIGGER fail_report BEFORE UPDATE ON nodes FOR EACH ROW EXECUTE FUNCTION fail_report()`.execute(suite.t.db);
  try {
    const pipeline = createPipeline(suite.deps, { lanes: 1 });
    const outcomes = await Promise.allSettled(['f-1', 'f-2', 'f-3', 'f-4'].map((node) => pipeline.run(agent(node), report(node, 1))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await marks('f-')).toEqual([
      ['f-1', 1],
      ['f-2', 1],
      ['f-3', null],
      ['f-4', 1],
    ]);
    const stored = await sql<{ n: string }>`SELECT count(*) n FROM events WHERE stream_id = 'node:f-3' AND type = 'NodeReported'`.execute(suite.t.db);
    expect(Number(stored.rows[0]!.n)).toBe(0);
  } finally {
    await sql`DROP TRIGGER fail_report ON nodes`.execute(suite.t.db);
  }
});
