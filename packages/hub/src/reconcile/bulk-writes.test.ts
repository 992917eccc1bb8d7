import { DesiredStream } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { oneThenTogether, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import { createPipeline, type Actor } from '../commands/pipeline.ts';
import { allProjections } from '../projections/all.ts';
import { verifyProjections } from '../projections/verify.ts';
import { reconcileQueues } from './queues.ts';
import { writeDesired } from './write-desired.ts';

// Desired writes to different streams that share a transaction load together, one round trip for all of
// them: SPEC A1-A3 hold as if each ran alone, and a second write to a stream sees the first.
const suite = pipelineSuite(reconcileQueues, '2026-12-01T12:00:00.000Z');
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };

beforeAll(async () => {
  for (const node of ['w-1', 'w-2']) await registerAgent(suite.deps, node);
});

const write = (streamId: string, nodes: string[], args: string[] = []) =>
  writeDesired({ streamId, desired: DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep', args }, placement: { nodes } }), actionId: null, ifMatch: null, overrideHold: false });

const intents = async (streamId: string) =>
  (await suite.t.db.selectFrom('intents').select(['node_id', 'generation', 'state']).where('stream_id', '=', streamId).orderBy('generation').orderBy('node_id').execute()).map((i) => [i.node_id, i.generation, i.state]);

test('A1 A2 A3 writes loaded together: each stream gets its generation, a second write to a stream supersedes the first', async () => {
  const pipeline = createPipeline(suite.deps, { lanes: 1 });
  const outcomes = await Promise.all([
    pipeline.run(operator, write('wa', ['w-1'])), // sent in one turn, the four share a transaction
    pipeline.run(operator, write('wb', ['w-1', 'w-2'])),
    pipeline.run(operator, write('wc', ['w-2'])),
    pipeline.run(operator, write('wb', ['w-2'], ['again'])), // the same stream again: loaded after the first one's effects
  ]);
  expect(outcomes.map((o) => (o.ok ? [o.value.result.generation, o.value.result.nodes] : o.error.code))).toEqual([
    [1, ['w-1']],
    [1, ['w-1', 'w-2']],
    [1, ['w-2']],
    [2, ['w-2', 'w-1']],
  ]);
  expect(await intents('wb')).toEqual([
    ['w-1', 1, 'superseded'],
    ['w-2', 1, 'superseded'],
    ['w-1', 2, 'pending'],
    ['w-2', 2, 'pending'],
  ]);
  expect(await verifyProjections(suite.t.db, allProjections)).toEqual([]);
});

test('a batch of writes to existing streams is two round trips whatever its size: BEGIN with its loads, then its appends with COMMIT', async () => {
  const streams = ['x-1', 'x-2', 'x-3', 'x-4'];
  for (const s of streams) {
    const first = await createPipeline(suite.deps).run(operator, write(s, ['w-1']));
    expect(first.ok).toBe(true);
  }
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const pipeline = createPipeline({ ...suite.deps, db }, { lanes: 1 });
    const outcomes = await oneThenTogether(streams, (s) => pipeline.run(operator, write(s, ['w-2'])));
    expect(outcomes.map((o) => o.ok && o.value.result.generation)).toEqual([2, 2, 2, 2]);
  });
  // One alone, then the three together: two transactions of two round trips each.
  expect(roundTrips).toEqual(['simple', 'simple', 'simple', 'simple']);
});
