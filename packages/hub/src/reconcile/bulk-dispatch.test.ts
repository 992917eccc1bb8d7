import { AttemptResult, DesiredStream } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { agentActor, mustRun, oneThenTogether, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import { createPipeline, type Actor, type Command } from '../commands/pipeline.ts';
import { setMaintenance } from '../nodes/set-maintenance.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { leaseAttempts, type LeasedAttempt } from './lease-attempts.ts';
import { reconcileQueues } from './queues.ts';
import { reconcileNode } from './reconcile-node.ts';
import { answeredAttempt, FOREIGN_ATTEMPT, recordResult } from './record-result.ts';
import { writeDesired } from './write-desired.ts';

// Polls and results that share a transaction load together, one round trip for all of them, as reports do:
// SPEC C1, C6 and D1 hold as if each ran alone.
const suite = pipelineSuite(reconcileQueues);
const agent = agentActor;
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };
const policy = { baseMs: 1000, maxMs: 60_000 };

const must = <S, R>(actor: Actor, command: Command<S, R>) => mustRun(suite.deps, actor, command);

/** Registered nodes, each with a stream placed on it and its start attempt queued. */
async function queuedOn(nodes: readonly string[]): Promise<void> {
  for (const node of nodes) {
    await registerAgent(suite.deps, node);
    const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: [node] } });
    await must(operator, writeDesired({ streamId: `${node}-s`, desired, actionId: null, ifMatch: null, overrideHold: false }));
    expect((await must(operator, reconcileNode(node, 'lifecycle'))).queued).toBe(1);
  }
}

const lease = (node: string) => leaseAttempts(node, 'lifecycle', 30_000);
const attemptStates = async (prefix: string) =>
  (await suite.t.db.selectFrom('attempts').select(['node_id', 'state']).where('node_id', 'like', `${prefix}%`).orderBy('node_id').execute()).map((r) => [r.node_id, r.state]);

test('C6 D1 polls leased together: each node gets its own attempts once, a drained node none, an unknown node none', async () => {
  await queuedOn(['p-1', 'p-2', 'p-3', 'p-4']);
  await must(operator, setMaintenance('p-3', true));

  const pipeline = createPipeline(suite.deps, { lanes: 1 });
  // Sent in one turn, the six share a transaction. p-2 polls twice: its second poll loads after the first
  // one's lease, and finds nothing left.
  const outcomes = await Promise.all(['p-1', 'p-2', 'p-2', 'p-3', 'p-4', 'p-9'].map((node) => pipeline.run(agent(node), lease(node))));
  const leased = outcomes.map((o) => (o.ok ? o.value.result.map((a: LeasedAttempt) => a.nodeId) : o.error.code));
  expect(leased).toEqual([['p-1'], ['p-2'], [], [], ['p-4'], []]);
  expect(await attemptStates('p-')).toEqual([
    ['p-1', 'dispatched'],
    ['p-2', 'dispatched'],
    ['p-3', 'queued'],
    ['p-4', 'dispatched'],
  ]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('a batch of polls is two round trips whatever its size: BEGIN with its locks, then its appends with COMMIT', async () => {
  const nodes = ['q-1', 'q-2', 'q-3', 'q-4', 'q-5'];
  await queuedOn(nodes);
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const pipeline = createPipeline({ ...suite.deps, db }, { lanes: 1 });
    const outcomes = await oneThenTogether(nodes, (node) => pipeline.run(agent(node), lease(node)));
    expect(outcomes.map((o) => o.ok && o.value.result.length)).toEqual([1, 1, 1, 1, 1]);
  });
  // One alone, then the four together: two transactions of two round trips each.
  expect(roundTrips).toEqual(['simple', 'simple', 'simple', 'simple']);
});

test('C1 C6 results recorded together: each settles its own attempt, a second answer from one node sees the first, another node\'s attempt is refused; each answers with its attempt as committed, in the same round trips', async () => {
  const nodes = ['r-1', 'r-2', 'r-3', 'r-4'];
  await queuedOn(nodes);
  const attempts = new Map<string, string>();
  for (const node of nodes) attempts.set(node, (await must(agent(node), lease(node)))[0]!.attemptId);
  const succeeded = AttemptResult.parse({ outcome: 'succeeded', generation: 1 });
  const failed = AttemptResult.parse({ outcome: 'failed', generation: 1, failure_class: 'temporary', code: 'busy', message: 'try later' });

  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const pipeline = createPipeline({ ...suite.deps, db }, { lanes: 1 });
    const record = (node: string, attemptOf: string, result: AttemptResult) => pipeline.run(agent(node), recordResult(attempts.get(attemptOf)!, node, result, policy, 0.5));
    const answers: [string, string, AttemptResult][] = [
      ['r-1', 'r-1', succeeded], // alone; the rest share a transaction
      ['r-2', 'r-2', failed], // a temporary failure: retried later (C1)
      ['r-2', 'r-2', succeeded], // the same node again: decided after the failure, on its own load
      ['r-3', 'r-4', succeeded], // another node's attempt
      ['r-4', 'r-4', succeeded],
    ];
    const outcomes = await oneThenTogether(answers, (answer) => record(...answer));
    const recorded = outcomes.map((o) => (o.ok ? (o.value.result.retryAt ? 'retry' : o.value.events.map((e) => e.type).join()) : o.error.code));
    // r-2's second answer finds its attempt already failed: it records nothing.
    expect(recorded).toEqual(['AttemptSucceeded', 'retry', '', FOREIGN_ATTEMPT, 'AttemptSucceeded']);
    // The answer's attempt (Command.readBack) as the transaction left it: r-2's first answer shows the failure
    // its second one then found.
    const answered = outcomes.map((o) => (o.ok ? [answeredAttempt(o.value).attempt_id, answeredAttempt(o.value).state] : null));
    expect(answered).toEqual([
      [attempts.get('r-1'), 'succeeded'],
      [attempts.get('r-2'), 'failed'],
      [attempts.get('r-2'), 'failed'],
      null,
      [attempts.get('r-4'), 'succeeded'],
    ]);
  });
  // r-1 alone (2), then [r-2 failed, r-3, r-4] loaded together and r-2's second answer after them in the same
  // transaction: one load, then the second load with the first part's appends, then COMMIT.
  expect(roundTrips).toEqual(['simple', 'simple', 'simple', 'simple', 'simple']);
  expect(await attemptStates('r-')).toEqual([
    ['r-1', 'succeeded'],
    ['r-2', 'failed'],
    ['r-3', 'dispatched'],
    ['r-4', 'succeeded'],
  ]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});
