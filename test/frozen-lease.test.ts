import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually, TestAgent } from './support/fleet.ts';
import { caller, startTestHub, testConfig, TOKENS, type TestHub } from './support/hub.ts';
import { startConfiguredHub, type HubProcess } from './support/process.ts';

// A Hub stopped (SIGSTOP, a VM paused, a long GC) after it leased an attempt and before the attempt left:
// meanwhile the lease ran out, another Hub's sweep made the attempt ambiguous (C4), the node's next report
// reopened its intent (C5) and a second attempt went to the node. Resumed, the Hub sent the first attempt all
// the same, and the agent, which does not judge a lease by its own clock, ran the intent's work twice. An
// attempt now leaves a Hub only while at least half its lease is left; one held longer stays behind, and a
// warning says so. What else a frozen Hub holds when it resumes (a result, an operator's write, both sent again
// elsewhere meanwhile) already counted once: the second test shows it.
const LEASE_MS = 3_000;

let t: TestDatabase;
let dir: string;
let frozen: HubProcess | null = null;
let live: TestHub | null = null;

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-frozen-lease-'));
  const config = testConfig(2, { lease_ms: LEASE_MS });
  frozen = await startConfiguredHub({ databaseUrl: t.url, dir, config: config.file });
  live = await startTestHub(t.url, { config, sweepEveryMs: 250 });
}, 60_000);
afterAll(async () => {
  if (frozen) process.kill(frozen.child.pid!, 'SIGCONT');
  await frozen?.stop('SIGKILL');
  await live?.stop();
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const attemptsOf = (stream: string) =>
  t.db.selectFrom('attempts').select(['attempt_id', 'intent_id', 'state']).where('stream_id', '=', stream).orderBy('created_at').execute();

test('C4 C5 a Hub frozen between leasing an attempt and sending it, past the lease, does not send it once resumed: the intent\'s work is not done twice', async () => {
  const agent = await TestAgent.reporting(live!, 'edge-1');
  const put = await live!.call('PUT', '/api/v1/streams/frozen-lease', {
    token: TOKENS.operator,
    body: { desired_state: 'running', spec: {}, placement: { nodes: ['edge-1'], split: false } },
  });
  expect(put.status).toBe(200);
  const [first] = await eventually(async () => {
    const rows = await attemptsOf('frozen-lease');
    return rows.length === 1 && rows[0]!.state === 'queued' ? rows : undefined;
  });

  // The frozen Hub's lease waits to append to the intent's stream, held here; it is frozen there, and its
  // append and commit then run on the server: the attempt is leased by a Hub that cannot send it.
  const holder = await t.db.startTransaction().execute();
  await sql`SELECT 1 FROM stream_heads WHERE stream_id = ${`intent:${first!.intent_id}`} FOR UPDATE`.execute(holder);
  const stuck = caller(frozen!.url).call('GET', '/api/v1/agent/attempts?wait=0', { token: `edge-1-agent-token` });
  await eventually(async () => {
    const { rows } = await sql`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = 'fleetplane-hub'`.execute(t.db);
    return rows.length > 0 ? true : undefined;
  });
  process.kill(frozen!.child.pid!, 'SIGSTOP');
  await holder.commit().execute();
  await eventually(async () => ((await attemptsOf('frozen-lease'))[0]!.state === 'dispatched' ? true : undefined));

  // The live Hub's sweep makes it ambiguous; the node's next report reopens the intent; a second attempt goes to the node.
  await eventually(async () => ((await attemptsOf('frozen-lease'))[0]!.state === 'ambiguous' ? true : undefined));
  expect((await agent.report()).status).toBe(202);
  const second = await eventually(async () => {
    const got = await agent.attempts(1);
    return got.length ? got : undefined;
  }, 60_000);
  expect(second.map((a) => a.attempt_id)).not.toContain(first!.attempt_id);

  // Resumed, the frozen Hub answers the poll it held without the attempt whose lease ran out, and says so.
  process.kill(frozen!.child.pid!, 'SIGCONT');
  const late = await stuck;
  expect(late.status).toBe(200);
  expect(late.body.attempts).toEqual([]);
  await eventually(async () => (/"level":"warn".*lease/.test(frozen!.output()) ? true : undefined));
}, 120_000);

test('A4 C4 a Hub frozen with an agent\'s result and an operator\'s write in its sockets, resumed after both were sent again to another Hub: each counts once, nothing answers 5xx', async () => {
  const agent = await TestAgent.reporting(live!, 'edge-2');
  const write = (hub: Pick<TestHub, 'call'>, n: number) =>
    hub.call('PUT', '/api/v1/streams/resumed', {
      token: TOKENS.operator,
      headers: { 'idempotency-key': `resumed-${n}` },
      body: { desired_state: 'running', spec: { n }, placement: { nodes: ['edge-2'], split: false } },
    });
  expect((await write(live!, 1)).status).toBe(200);
  const [attempt] = await eventually(async () => {
    const got = await agent.attempts(1);
    return got.length ? got : undefined;
  });
  agent.apply(attempt);
  const result = { outcome: 'succeeded', generation: attempt.generation };

  process.kill(frozen!.child.pid!, 'SIGSTOP');
  const frozenAgent = new TestAgent(caller(frozen!.url), 'edge-2');
  const heldResult = frozenAgent.result(attempt.attempt_id, result);
  const heldWrite = write(caller(frozen!.url), 2);
  await new Promise((r) => setTimeout(r, 1_000));
  // Their clients gave up on the frozen Hub and sent them again, through the live one.
  expect((await agent.result(attempt.attempt_id, result)).status).toBe(200);
  const written = await write(live!, 2);
  expect(written.status).toBe(200);

  process.kill(frozen!.child.pid!, 'SIGCONT');
  const [lateResult, lateWrite] = await Promise.all([heldResult, heldWrite]);
  expect(lateResult.status).toBe(200);
  expect(lateResult.body.state).toBe('succeeded');
  expect(lateWrite.status).toBe(200);
  expect(lateWrite.headers.get('idempotent-replayed')).toBe('true');
  expect(lateWrite.body.generation).toBe(written.body.generation);
  const counts = await t.db
    .selectFrom('events')
    .select(['type', (eb) => eb.fn.countAll<string>().as('n')])
    .where('type', 'in', ['AttemptSucceeded', 'StreamDesired'])
    .where((eb) => eb.or([eb('stream_id', '=', 'stream:resumed'), eb('stream_id', '=', `intent:${attempt.intent_id}`)]))
    .groupBy('type')
    .orderBy('type')
    .execute();
  expect(counts.map((c) => [c.type, Number(c.n)])).toEqual([['AttemptSucceeded', 1], ['StreamDesired', 2]]);
}, 60_000);
