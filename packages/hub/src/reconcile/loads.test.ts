import { AttemptResult, DesiredStream } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import type { RoundTrip } from '../../../../test/support/round-trips.ts';
import { pipelineSuite } from '../../../../test/support/pipeline.ts';
import { runCommand, type Actor, type Command } from '../commands/pipeline.ts';
import { registerNode } from '../nodes/register-node.ts';
import { leaseAttempts } from './lease-attempts.ts';
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
