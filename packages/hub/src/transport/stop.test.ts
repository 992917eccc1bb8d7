import type { DesiredStream } from '@fleetplane/core';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, testConfig } from '../../../../test/support/hub.ts';
import type { Actor } from '../commands/pipeline.ts';
import { reconcileNode } from '../reconcile/reconcile-node.ts';
import { writeDesired } from '../reconcile/write-desired.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

test('C6 a Hub that is stopping leases nothing to the long polls it is about to cut: the attempt stays queued for the next Hub', async () => {
  const hub = await startTestHub(t.url, { config: testConfig(1) });
  let stopped = false;
  try {
    const agent = new TestAgent(hub, 'edge-1');
    await agent.register();
    // No job worker: the attempt below is queued and announced to nobody, as one queued while a Hub stops.
    await hub.context.reconciler.stop();
    const transport = hub.context.transport;
    const watch = transport.watch.bind(transport);
    let waiting = false;
    transport.watch = (nodeId) => {
      const watching = watch(nodeId);
      return {
        ...watching,
        wait(ms, signal) {
          waiting = true;
          return watching.wait(ms, signal);
        },
      };
    };
    const poll = agent.attempts(20).catch(() => []); // cut with its connection, or answered empty
    await eventually(async () => (waiting ? true : undefined));
    const actor: Actor = { principal: 'test', role: 'system', source: 'worker', correlationId: 'stop' };
    const desired: DesiredStream = { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } } as DesiredStream;
    await hub.context.pipeline.run(actor, writeDesired({ streamId: 'at-stop', desired, actionId: null, ifMatch: null, overrideHold: false }));
    await hub.context.pipeline.run(actor, reconcileNode('edge-1', 'lifecycle'));
    await hub.stop();
    stopped = true;
    expect(await poll).toEqual([]);
    const rows = await sql<{ state: string }>`SELECT state FROM attempts WHERE stream_id = 'at-stop'`.execute(t.db);
    expect(rows.rows.map((r) => r.state)).toEqual(['queued']);
  } finally {
    if (!stopped) await hub.stop();
  }
});
