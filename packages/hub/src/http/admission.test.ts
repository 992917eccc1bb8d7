import pg from 'pg';
import { createTestDatabase, waitingForLocks, type TestDatabase } from '../../../../test/support/database.ts';
import { startTestHub, testConfig, TOKENS, type TestHub } from '../../../../test/support/hub.ts';

// A storm of one class of client (a fleet reconnecting, a script hammering heavy reads) beyond what its class
// may have in flight and waiting is refused 429 `overloaded` with Retry-After, before any work, and the other
// class is served meanwhile. Requests are held in flight by a lock on a table only their route reads, taken
// by a session of the test's own.

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url, {
    config: testConfig(2, {}, { agent_max_in_flight: 1, agent_max_queued: 0, operator_max_in_flight: 1, operator_max_queued: 1 }),
  });
  for (const [node, token] of [['edge-1', TOKENS.agent1], ['edge-2', TOKENS.agent2]] as const) {
    expect((await hub.call('POST', '/api/v1/agent/register', { token, body: { node_id: node, boot_id: 'boot-1', agent_version: 'test' } })).status).toBe(200);
  }
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

/** A session of the test's own holding `table` locked until `release`. */
async function holding(table: string): Promise<{ release(): Promise<void> }> {
  const session = new pg.Client({ connectionString: t.url });
  await session.connect();
  await session.query('BEGIN');
  await session.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await session.query('COMMIT');
      await session.end();
    },
  };
}

/** The answer, or a failure naming the request when none comes within 5 s: without admission a request beyond the bound waits with the rest. */
async function answered<T>(what: string, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5_000)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

const report = (node: string, seq: number) => ({ node_id: node, boot_id: 'boot-1', report_seq: seq, streams: [] });

async function refusedTotal(cls: string): Promise<number> {
  const text = (await hub.call('GET', '/metrics', { token: null })).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`fleetplane_http_requests_refused_total{class="${cls}",reason="queue_full"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test("operators' requests beyond their bound are refused 429 overloaded with Retry-After and write nothing; agents are served meanwhile", async () => {
  const lock = await holding('config_approvals');
  let held: Array<Promise<{ status: number }>> = [];
  try {
    // One in flight, one waiting: the operators' class is full.
    held = [hub.call('GET', '/api/v1/config-approvals', { token: TOKENS.viewer }), hub.call('GET', '/api/v1/config-approvals', { token: TOKENS.viewer })];
    await waitingForLocks(t.db, 1);
    await eventuallyQueued('operator', 1);

    // More operators' reads than the Hub has database connections: each would hold one, waiting on the lock.
    const reads = await answered('reads beyond the bound', Promise.all(Array.from({ length: 24 }, () => hub.call('GET', '/api/v1/config-approvals', { token: TOKENS.viewer }))));
    expect(new Set(reads.map((r) => r.status))).toEqual(new Set([429]));
    const read = reads[0]!;
    expect(read.headers.get('retry-after')).toBe('1');
    expect(read.body).toMatchObject({ code: 'overloaded', details: { class: 'operator', reason: 'queue_full', in_flight: 1, queued: 1 } });

    const write = await answered('a write beyond the bound', hub.call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { tier: 'storm' } }));
    expect(write.status).toBe(429);
    expect(write.body.code).toBe('overloaded');

    // The fleet's class has places of its own.
    const reported = await answered("an agent's report", hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent1, body: report('edge-1', 1) }));
    expect(reported.status).toBe(202);
  } finally {
    await lock.release();
  }
  expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200]);
  expect(await refusedTotal('operator')).toBe(25);
  // The refused write changed nothing.
  const node = await hub.call('GET', '/api/v1/nodes/edge-1', { token: TOKENS.viewer });
  expect(node.body.labels).toEqual({});
  const events = await hub.call('GET', '/api/v1/events?type=NodeLabelsReplaced', { token: TOKENS.viewer });
  expect(events.body.items).toEqual([]);
});

test("agents' requests beyond their bound are refused 429 overloaded with Retry-After and record nothing; operators are served meanwhile", async () => {
  const lock = await holding('nodes');
  let held: Promise<{ status: number }> | null = null;
  try {
    held = hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent1, body: report('edge-1', 2) });
    await waitingForLocks(t.db, 1);

    const refused = await answered('a report beyond the bound', hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent2, body: report('edge-2', 1) }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body).toMatchObject({ code: 'overloaded', details: { class: 'agent', reason: 'queue_full', in_flight: 1, queued: 0 } });

    // The operators' class has places of its own.
    const read = await answered("an operator's read", hub.call('GET', '/api/v1/config-approvals', { token: TOKENS.viewer }));
    expect(read.status).toBe(200);
  } finally {
    await lock.release();
  }
  expect((await held!).status).toBe(202);
  expect(await refusedTotal('agent')).toBe(1);
  // The refused report was not recorded: edge-2 has reported nothing, and its report is taken when sent again.
  const reports = await hub.call('GET', '/api/v1/events?type=NodeReported&stream_id=node:edge-2&reports=all', { token: TOKENS.viewer });
  expect(reports.body.items).toEqual([]);
  expect((await hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent2, body: report('edge-2', 1) })).status).toBe(202);
});

/** Waits until the Hub has `n` requests of `cls` waiting for a place. */
async function eventuallyQueued(cls: 'agent' | 'operator', n: number): Promise<void> {
  while (hub.context.admission.queued(cls) < n) await new Promise((r) => setTimeout(r, 10));
}

test('a long poll held is not work in flight: it leaves the agents their places', async () => {
  // edge-1's poll waits for attempts; with one place for the agents' class, counting it would refuse every report.
  const poll = hub.call('GET', '/api/v1/agent/attempts?wait=2', { token: TOKENS.agent1 });
  while (hub.context.transport.watched() < 1) await new Promise((r) => setTimeout(r, 10));
  expect((await answered("a report beside the held poll", hub.call('POST', '/api/v1/agent/reports', { token: TOKENS.agent2, body: report('edge-2', 2) }))).status).toBe(202);
  expect((await poll).status).toBe(200);
});
