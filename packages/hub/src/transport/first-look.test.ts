import { DesiredStream, Report } from '@fleetplane/core';
import { roundTripsOf } from '../../../../test/support/database.ts';
import { agentActor, mustRun, pipelineSuite, registerAgent } from '../../../../test/support/pipeline.ts';
import type { Actor } from '../commands/pipeline.ts';
import { retireNode } from '../nodes/retire-node.ts';
import { deleteStream } from '../reconcile/delete-stream.ts';
import { ingestReport } from '../reconcile/ingest-report.ts';
import { reconcileQueues } from '../reconcile/queues.ts';
import { removeStream } from '../reconcile/remove-stream.ts';
import { reconcileNode } from '../reconcile/reconcile-node.ts';
import { writeDesired } from '../reconcile/write-desired.ts';
import { firstLooks } from './first-look.ts';

// A long poll looks at its node before it waits (C6, K3): polls that arrive together look together.
const suite = pipelineSuite(reconcileQueues);
const operator: Actor = { principal: 'bob', role: 'operator', source: 'api', correlationId: 'corr-op' };

test('C6 K3 K5 polls arriving while a first look runs look together in the next: one round trip for all, each its own node\'s answer', async () => {
  for (const node of ['f-1', 'f-2', 'f-3', 'f-4']) await registerAgent(suite.deps, node);
  const desired = DesiredStream.parse({ desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['f-2'] } });
  await mustRun(suite.deps, operator, writeDesired({ streamId: 'f-2-s', desired, actionId: null, ifMatch: null, overrideHold: false }));
  expect((await mustRun(suite.deps, operator, reconcileNode('f-2', 'lifecycle'))).queued).toBe(1);
  await mustRun(suite.deps, operator, retireNode('f-4', false));
  // f-3 still reports a stream the Hub removed after f-3 stopped it (K5), and one it did not remove.
  for (const stream of ['f-3-gone', 'f-3-kept']) {
    const placed = DesiredStream.parse({ desired_state: 'stopped', spec: { command: 'sleep' }, placement: { nodes: ['f-3'] } });
    await mustRun(suite.deps, operator, writeDesired({ streamId: stream, desired: placed, actionId: null, ifMatch: null, overrideHold: false }));
  }
  await mustRun(suite.deps, operator, deleteStream('f-3-gone', null));
  const streams = [{ stream_id: 'f-3-gone', generation: 2, state: 'stopped' }, { stream_id: 'f-3-kept', generation: 1, state: 'stopped' }];
  await mustRun(suite.deps, agentActor('f-3'), ingestReport(Report.parse({ node_id: 'f-3', boot_id: 'boot-1', report_seq: 1, full: true, streams })));
  expect(await mustRun(suite.deps, operator, removeStream('f-3-gone'))).toEqual({ removed: true });
  const { retired_at } = await suite.t.db.selectFrom('retired_nodes').select('retired_at').where('node_id', '=', 'f-4').executeTakeFirstOrThrow();

  let looks: unknown[] = [];
  const roundTrips = await roundTripsOf(suite.t.url, async (db) => {
    const look = firstLooks(db);
    // f-1 looks alone at once; the others, and f-1 again, arrive while it runs and take the next look together.
    looks = await Promise.all(['f-1', 'f-2', 'f-3', 'f-4', 'f-1', 'f-unknown'].map((node) => look(node)));
  });
  expect(looks).toEqual([
    { retiredAt: null, queued: false, removedStreams: [] },
    { retiredAt: null, queued: true, removedStreams: [] },
    { retiredAt: null, queued: false, removedStreams: [{ stream_id: 'f-3-gone', generation: 2 }] },
    { retiredAt: retired_at, queued: false, removedStreams: [] },
    { retiredAt: null, queued: false, removedStreams: [] },
    { retiredAt: null, queued: false, removedStreams: [] },
  ]);
  expect(roundTrips).toEqual(['simple', 'simple']);
});
