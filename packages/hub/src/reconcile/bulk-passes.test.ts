import { DesiredStream, type Placement } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { mustRun, oneThenTogether, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import { createPipeline, type Actor, type Command } from '../commands/pipeline.ts';
import { setMaintenance } from '../nodes/set-maintenance.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { reconcileQueues } from './queues.ts';
import { reconcileNode } from './reconcile-node.ts';
import { writeDesired } from './write-desired.ts';

// Reconcile passes that share a transaction load together, one round trip for all of them, as reports do:
// each node's pass decides on what it would have loaded alone (SPEC B1, C1, D1, E1), and two passes sharing a
// split placement still run one after the other.
const suite = pipelineSuite(reconcileQueues);
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };
const worker: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId: 'corr-pass' };

const must = <S, R>(actor: Actor, command: Command<S, R>) => mustRun(suite.deps, actor, command);
const write = (streamId: string, placement: Placement) =>
  must(operator, writeDesired({ streamId, desired: DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement }), actionId: null, ifMatch: null, overrideHold: false }));
const pass = (node: string) => reconcileNode(node, 'lifecycle');

/** A pass's state with the ids it draws for attempts it might queue left out: those are new on every load. */
const drawnIdsLeftOut = (state: unknown) => JSON.parse(JSON.stringify(state, (key, value) => (key === 'newAttemptId' ? undefined : value instanceof Map ? [...value] : value)));

test('SPEC B1 C1 D1 E1 passes loaded together each load what they would alone: a pending intent, a drained node, an attempt already queued, a node never registered, a split placement', async () => {
  for (const node of ['e-1', 'e-2', 'e-3', 'e-5', 'e-6']) await registerAgent(suite.deps, node);
  await write('e-s1', { nodes: ['e-1'], split: false });
  await write('e-s2', { nodes: ['e-2'], split: false });
  await must(operator, setMaintenance('e-2', true));
  // e-3: an attempt queued and not yet delivered.
  await write('e-s3', { nodes: ['e-3'], split: false });
  expect((await must(worker, pass('e-3'))).queued).toBe(1);
  await write('e-s4', { nodes: ['e-4'], split: false });
  await write('e-s5', { nodes: ['e-5', 'e-6'], split: true });

  const nodes = ['e-1', 'e-2', 'e-3', 'e-4', 'e-5', 'e-7'];
  const now = new Date('2026-11-30T13:00:00.000Z');
  await suite.deps.db
    .transaction()
    .execute(async (trx) => {
      const together = await pass('e-1').bulk!.loadMany(trx, nodes, now);
      expect([...together.keys()]).toEqual(nodes);
      for (const node of nodes) expect(drawnIdsLeftOut(together.get(node))).toEqual(drawnIdsLeftOut(await pass(node).load!(trx, now)));
      expect(together.get('e-1')!.candidates.map((c) => c.streamId)).toEqual(['e-s1']);
      expect(together.get('e-2')!.node.maintenance).toBe('draining');
      expect(together.get('e-3')!.waiting).toBe(1);
      expect(together.get('e-4')!.node.registered).toBe(false);
      expect([...together.get('e-5')!.peers.keys()]).toEqual(['e-5', 'e-6']);
      expect(together.get('e-5')!.candidates[0]!.siblings).toHaveLength(1);
      throw new Rollback();
    })
    .catch((e: unknown) => {
      if (!(e instanceof Rollback)) throw e;
    });
});

class Rollback extends Error {}

test('SPEC E1 two passes of a split placement that cannot run, in one transaction: the second loads after the first blocked both intents, and blocks nothing again', async () => {
  await registerAgent(suite.deps, 'b-1');
  await registerAgent(suite.deps, 'b-2');
  // Neither node has network_shuffle nor a data address: the placement is rejected.
  await write('b-s', { nodes: ['b-1', 'b-2'], split: true });

  const pipeline = createPipeline(suite.deps, { lanes: 1 });
  // Sent in one turn, the three share a transaction; b-0 was never registered.
  const outcomes = await Promise.all(['b-0', 'b-1', 'b-2'].map((node) => pipeline.run(worker, pass(node))));
  expect(outcomes.map((o) => o.ok && o.value.events.map((e) => e.type))).toEqual([[], ['IntentBlocked', 'IntentBlocked'], []]);
  const blocked = await suite.t.db.selectFrom('intents').select(['node_id', 'state', 'failure_code']).where('stream_id', '=', 'b-s').orderBy('node_id').execute();
  expect(blocked).toEqual([
    { node_id: 'b-1', state: 'blocked', failure_code: 'placement_rejected' },
    { node_id: 'b-2', state: 'blocked', failure_code: 'placement_rejected' },
  ]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('SPEC C1 a batch of passes is two round trips whatever its size: BEGIN with its loads, then its appends with COMMIT', async () => {
  const nodes = ['t-1', 't-2', 't-3', 't-4', 't-5'];
  for (const node of nodes) {
    await registerAgent(suite.deps, node);
    await write(`${node}-s`, { nodes: [node], split: false });
  }
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const pipeline = createPipeline({ ...suite.deps, db }, { lanes: 1 });
    const outcomes = await oneThenTogether(nodes, (node) => pipeline.run(worker, pass(node)));
    expect(outcomes.map((o) => o.ok && o.value.result.queued)).toEqual([1, 1, 1, 1, 1]);
  });
  // One alone, then the four together: two transactions of two round trips each.
  expect(roundTrips).toEqual(['simple', 'simple', 'simple', 'simple']);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
