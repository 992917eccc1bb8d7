import pg from 'pg';
import { eventually, latestIntent, TestAgent } from './support/fleet.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from './support/hub.ts';
import { startOwnServer, type OwnServer } from './support/own-server.ts';

// A failover under a running Hub: its server at the same address is now a promoted standby, on the next
// timeline, which may have lost the old primary's last commits. The Hub finds the database's identity changed
// at its next check (docs/decisions.md, "A restored Hub does not act on a node before it hears from it") and
// sends a node nothing until the node reports. A promoted standby's last checkpoint still names the old
// timeline until its first checkpoint completes, minutes later: the check reads the timeline WAL is written on.
let server: OwnServer;
let hub: TestHub;

beforeAll(async () => {
  server = await startOwnServer();
  // The identity is checked at the lease sweep's pace.
  hub = await startTestHub(server.url(), { config: testConfig(2, { mode: 'lifecycle' }), sweepEveryMs: 200 });
}, 60_000);

afterAll(async () => {
  await hub?.stop();
  await server?.destroy();
});

const restoredAt = async (): Promise<Date | null> => {
  const client = new pg.Client({ connectionString: server.url() });
  await client.connect();
  try {
    return (await client.query<{ restored_at: Date | null }>('SELECT restored_at FROM database_identity')).rows[0]!.restored_at;
  } finally {
    await client.end();
  }
};

test('C5 C6 a failover to a promoted standby is found by the running Hub, which sends a node nothing until it reports', async () => {
  const agent = await TestAgent.reporting(hub, 'edge-1');
  expect(await restoredAt()).toBeNull();

  await server.promoteToNewTimeline();
  const at = await eventually(async () => (await restoredAt().catch(() => null)) ?? undefined, 30_000);
  const ready = await eventually(async () => {
    const r = await hub.call('GET', '/readyz', { token: null });
    return r.status === 200 ? r : undefined;
  }, 30_000);
  expect(ready.body.checks.database.detail).toContain(`restored at ${at.toISOString()}`);

  const written = await hub.call('PUT', '/api/v1/streams/ingest', {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: { command: 'sleep' }, placement: { nodes: ['edge-1'] } },
  });
  expect(written.status).toBe(200);
  expect(await latestIntent(hub, 'ingest', 'edge-1')).toMatchObject({ state: 'pending', waiting_on: { kind: 'database_restored' } });
  expect(await agent.attempts(0)).toEqual([]);

  expect((await agent.report()).status).toBe(202);
  const attempts = await eventually(async () => {
    const got = (await agent.attempts(1)).filter((a) => a.stream_id === 'ingest');
    return got.length ? got : undefined;
  }, 20_000);
  expect(attempts[0]).toMatchObject({ stream_id: 'ingest', operation: 'job_start' });
}, 120_000);
