import type { ServerResponse } from 'node:http';
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeHub, waitFor } from '../../../test/support/fake-hub.ts';
import { Agent } from './agent.ts';
import type { AttemptCommand, Executor } from './executors/executor.ts';
import { KeyedSerial } from './executors/common.ts';
import { createSimExecutor } from './executors/sim.ts';

// Executing attempts at most once, across agent restarts, by attempt id (the journal in the state dir).
type Line = { level: string; message: string; fields: Record<string, unknown> };

let hub: FakeHub;
let dir: string;
const agents: Agent[] = [];
/** What the agents started by `startAgent` logged in this test. */
let lines: Line[];
beforeEach(async () => {
  lines = [];
  hub = new FakeHub();
  await hub.start();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-agent-'));
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await hub.stop();
  await rm(dir, { recursive: true, force: true });
});

/** A sim executor that counts how often it really applies something. */
function counting(): Executor & { applied: string[] } {
  const sim = createSimExecutor();
  const applied: string[] = [];
  return {
    applied,
    apply: (command) => {
      applied.push(command.attempt_id);
      return sim.apply(command);
    },
    observe: () => sim.observe(),
    forget: (streamId, generation) => sim.forget(streamId, generation),
    onChange: (listener) => sim.onChange(listener),
    close: () => sim.close(),
  };
}

async function startAgent(executor: Executor): Promise<Agent> {
  const agent = new Agent({ hub: hub.url, nodeId: 'edge-1', token: 't', stateDir: dir, executor, pollSeconds: 1, reportEveryMs: 60_000, log: (level, message, fields = {}) => lines.push({ level, message, fields }) });
  agents.push(agent);
  await agent.start();
  return agent;
}

/** A lifecycle attempt of its own id for a stream and generation. */
const lifecycle = (attempt_id: string, operation: AttemptCommand['operation'], stream_id: string, generation: number): AttemptCommand => ({
  ...restart,
  attempt_id,
  intent_id: `in_${attempt_id}`,
  operation,
  stream_id,
  generation,
  action_id: null,
});

const restart: AttemptCommand = {
  attempt_id: 'at_restart',
  intent_id: 'in_restart',
  operation: 'job_restart',
  stream_id: 'ingest',
  generation: 2,
  spec: {},
  action_id: 'ac_1',
  config_version: null,
  flags: {},
};

test('an attempt delivered again after an agent restart is answered from the journal, not executed twice', async () => {
  const first = counting();
  const before = await startAgent(first);
  hub.deliver(restart);
  const result = await hub.result('at_restart');
  expect(first.applied).toEqual(['at_restart']);
  await agents.pop()!.stop();
  hub.results.clear();

  const second = counting();
  const again = await startAgent(second);
  expect(again.bootId).not.toBe(before.bootId); // every start is a new boot
  hub.deliver(restart);
  expect(await hub.result('at_restart')).toEqual(result);
  expect(second.applied).toEqual([]);
});

test('an attempt started before a crash and never finished is not run again, and no result is invented', async () => {
  await appendFile(join(dir, 'attempts.jsonl'), JSON.stringify({ attempt_id: 'at_restart' }) + '\n');
  const executor = counting();
  await startAgent(executor);
  hub.deliver(restart);
  await waitFor(() => (hub.pending.length === 0 ? true : undefined));
  // The next poll shows the agent moved on; it executed nothing and posted nothing for it.
  hub.deliver({ ...restart, attempt_id: 'at_other', action_id: 'ac_2', generation: 3 });
  await hub.result('at_other');
  expect(executor.applied).toEqual(['at_other']);
  expect(hub.results.has('at_restart')).toBe(false);
});

test('a Hub request that is never answered times out: the reports after it still go, and the agent stops', async () => {
  hub.unanswered = (seq) => seq === 2;
  const agent = new Agent({ hub: hub.url, nodeId: 'edge-1', token: 't', stateDir: dir, executor: createSimExecutor(), pollSeconds: 1, reportEveryMs: 50, hubTimeoutMs: 300 });
  await agent.start();
  await waitFor(() => (hub.reportSeqs.some((seq) => seq > 2) ? true : undefined));
  await agent.stop();
  expect(hub.reportSeqs).not.toContain(2);
});

test('reports asked for while the Hub is slow to answer one wait as one: the queue stays bounded', async () => {
  const agent = await startAgent(createSimExecutor());
  const before = hub.reportSeqs.length;
  hub.holdReports = true;
  const asked = [agent.report()];
  await waitFor(() => (hub.held === 1 ? true : undefined));
  // A Hub slower than the report period, for a long while: each period (and each stream's change) asks again.
  for (let i = 0; i < 100; i++) asked.push(agent.report());
  hub.releaseReports();
  await Promise.all(asked);
  // The report on its way, then one for all the others.
  expect(hub.reportSeqs.length - before).toBe(2);
});

test.each([
  ['a captive portal answers 200 with a page', (res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Sign in to continue</title></html>'), /^POST \/api\/v1\/agent\/reports: the answer \(200 text\/html\) is not the Hub's: not JSON: <html><title>Sign in to continue/],
  ['a proxy answers 200 with JSON of its own', (res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), /^POST \/api\/v1\/agent\/reports: the answer \(200 application\/json\) is not the Hub's: no "accepted": \{"status":"ok"\}/],
  ['the connection is cut in the middle of the answer', (res: ServerResponse) => {
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': '100' }).write('{"accepted":');
    setTimeout(() => res.destroy(), 20);
  }, /^POST \/api\/v1\/agent\/reports: the answer \(202 application\/json\) is not the Hub's: cut short/],
])('a report whose answer is not the Hub\'s (%s) is a failed report, logged as what it is: no takeover, no registration', async (_, answer, error) => {
  const agent = await startAgent(createSimExecutor());
  hub.intercept = (path, res) => path === '/api/v1/agent/reports' && (answer(res), true);
  await agent.report();
  expect(hub.registrations).toBe(1);
  expect(lines.filter((l) => l.message.startsWith('report'))).toEqual([
    { level: 'warn', message: 'report failed', fields: expect.objectContaining({ error: expect.stringMatching(error), status: expect.any(Number), correlation_id: expect.any(String) }) },
  ]);
});

test('a poll whose answer is not the Hub\'s is a failed poll that says so, and the next poll goes on', async () => {
  let foreign = 0;
  hub.intercept = (path, res) => {
    if (path !== '/api/v1/agent/attempts' || foreign++ > 0) return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[]}');
    return true;
  };
  await startAgent(counting());
  hub.deliver(restart);
  await hub.result('at_restart');
  expect(lines.filter((l) => l.message === 'attempt poll failed')).toEqual([
    { level: 'warn', message: 'attempt poll failed', fields: expect.objectContaining({ error: 'GET /api/v1/agent/attempts: the answer (200 application/json) is not the Hub\'s: no "attempts": {"items":[]}' }) },
  ]);
});

test('an attempt whose start the journal cannot record is not run, and the Hub is told it may try again', async () => {
  const executor = counting();
  await startAgent(executor);
  // A journal that takes no writes (a full or read-only disk fails the same call).
  await mkdir(join(dir, 'attempts.jsonl'));
  hub.deliver(restart);
  expect(await hub.result('at_restart')).toEqual({
    outcome: 'failed',
    failure_class: 'temporary',
    code: 'journal_unwritable',
    message: expect.stringMatching(/^cannot record the attempt's start in .*attempts\.jsonl, so it was not run: EISDIR/),
    mutation: 'pre_mutation',
    generation: 2,
  });
  expect(executor.applied).toEqual([]);
  // Delivered again (by the other channel), and the journal takes writes again: it is still not run.
  await rm(join(dir, 'attempts.jsonl'), { recursive: true });
  hub.results.clear();
  hub.deliver(restart, { ...restart, attempt_id: 'at_next', action_id: 'ac_2' });
  await hub.result('at_next');
  expect(executor.applied).toEqual(['at_next']);
  expect(hub.results.has('at_restart')).toBe(false);
  expect(lines).toContainEqual({ level: 'error', message: 'attempt not run: the journal cannot record its start', fields: expect.objectContaining({ attempt_id: 'at_restart', error: expect.stringMatching(/EISDIR/) }) });
});

test('an attempt whose result the journal cannot record still has its result posted, and is not run again', async () => {
  const executor = counting();
  const apply = executor.apply;
  executor.apply = async (command) => {
    // The disk stops taking writes while the attempt runs.
    await rm(join(dir, 'attempts.jsonl'));
    await mkdir(join(dir, 'attempts.jsonl'));
    return apply(command);
  };
  await startAgent(executor);
  hub.deliver(restart);
  expect(await hub.result('at_restart')).toMatchObject({ outcome: 'succeeded', generation: 2 });
  hub.results.clear();
  executor.apply = apply;
  await rm(join(dir, 'attempts.jsonl'), { recursive: true }); // the disk takes writes again
  hub.deliver(restart, { ...restart, attempt_id: 'at_next', action_id: 'ac_2' });
  await waitFor(() => (hub.pending.length === 0 ? true : undefined));
  await hub.result('at_next');
  expect(executor.applied).toEqual(['at_restart', 'at_next']);
  expect(hub.results.has('at_restart')).toBe(false);
});

test("a poll answer's attempts for other streams are not held behind one stream's slow attempt; one stream's run in order", async () => {
  const executor = counting();
  const apply = executor.apply;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  // A stop waiting out its stream's grace period, as long as it takes; one stream's attempts in line, as an
  // executor holds them.
  const serial = new KeyedSerial();
  executor.apply = (command) => serial.run(command.stream_id ?? '', async () => (command.attempt_id === 'at_slow_stop' ? gate.then(() => apply(command)) : apply(command)));
  await startAgent(executor);
  hub.deliver(lifecycle('at_slow_stop', 'job_stop', 'slow', 2), lifecycle('at_slow_start', 'job_start', 'slow', 3), lifecycle('at_a', 'job_start', 'a', 1), lifecycle('at_b', 'job_start', 'b', 1));
  try {
    await hub.result('at_a');
    await hub.result('at_b');
    expect(hub.results.has('at_slow_start')).toBe(false);
  } finally {
    release();
  }
  expect(await hub.result('at_slow_start')).toMatchObject({ outcome: 'succeeded', generation: 3 });
  expect(executor.applied.filter((id) => id.startsWith('at_slow'))).toEqual(['at_slow_stop', 'at_slow_start']);
});

test('a Hub away (503 with Retry-After, then a proxy\'s 502): the agent waits as asked and longer at each failure, and says when polls are answered again', async () => {
  const answers = [
    ['/api/v1/agent/register', 503],
    ['/api/v1/agent/attempts', 503],
    ['/api/v1/agent/attempts', 502],
  ];
  hub.intercept = (path, res) => {
    if (answers[0]?.[0] !== path) return false;
    const [, status] = answers.shift()!;
    if (status === 503) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' }).end('{"code":"database_unavailable","message":"the database is unavailable"}');
    else res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');
    return true;
  };
  await startAgent(counting());
  hub.deliver(restart);
  await waitFor(() => (lines.some((l) => l.message === 'attempt poll answered again') ? true : undefined), 20_000);
  await hub.result('at_restart');
  // Each delay with up to half as long again of jitter.
  expect(lines.filter((l) => /failed/.test(l.message)).map((l) => [l.message, l.fields['status'], l.fields['retry_in_ms']])).toEqual([
    ['register failed, retrying', 503, within(2000)], // not the 250 ms of its own backoff
    ['attempt poll failed', 503, within(2000)],
    ['attempt poll failed', 502, within(2000)], // its own backoff, doubled
  ]);
  expect(lines).toContainEqual({ level: 'info', message: 'attempt poll answered again', fields: expect.objectContaining({ failed_polls: 2 }) });
});

/** A retry delay of `ms` and up to half as long again (agent.ts, RETRY_JITTER). */
const within = (ms: number) => ({ asymmetricMatch: (d: unknown) => typeof d === 'number' && d >= ms && d <= ms * 1.5, toString: () => `${ms}-${ms * 1.5} ms` });

test("a Hub turning requests away (429 overloaded with Retry-After): the agent waits as asked, each wait with jitter of its own, so a fleet refused together asks again spread out", async () => {
  const refusals = 3;
  let left = refusals;
  hub.intercept = (path, res) => {
    if (path !== '/api/v1/agent/attempts' || left === 0) return false;
    left--;
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"code":"overloaded","message":"the Hub has as many agent requests as it takes at once waiting"}');
    return true;
  };
  await startAgent(counting());
  await waitFor(() => (lines.some((l) => l.message === 'attempt poll answered again') ? true : undefined), 20_000);
  const delays = lines.filter((l) => l.message === 'attempt poll failed').map((l) => [l.fields['status'], l.fields['retry_in_ms']] as [number, number]);
  expect(delays.map(([status]) => status)).toEqual(Array(refusals).fill(429));
  // At least the Retry-After and the agent's own doubling backoff (1 s, 2 s, 4 s), each with a jitter drawn anew.
  delays.forEach(([, ms], i) => expect(ms).toEqual(within(1000 * 2 ** i)));
  expect(delays.filter(([, ms], i) => ms !== 1000 * 2 ** i)).not.toEqual([]);
}, 30_000);

test('a control endpoint is registered for pushes only when it takes the Hub\'s credential', async () => {
  const withControl = async (hubCredentialSha256: string | null, stateDir: string) => {
    const agent = new Agent({ hub: hub.url, nodeId: 'edge-1', token: 't', stateDir, executor: createSimExecutor(), pollSeconds: 1, control: { host: '127.0.0.1', port: 0 }, hubCredentialSha256 });
    agents.push(agent);
    await agent.start();
    return agent.controlAddress;
  };
  expect(await withControl(null, join(dir, 'closed'))).toBeNull();
  expect(await withControl('a'.repeat(64), join(dir, 'open'))).toMatch(/^127\.0\.0\.1:\d+$/);
});

test('K3 an agent whose node was retired stops at the first node_retired: no retry, no more reports or polls', async () => {
  const agent = await startAgent(counting());
  hub.retired = true;
  await agent.report();
  await agent.refused;
  const refused = hub.refused;
  await new Promise((r) => setTimeout(r, 1500)); // longer than a poll's wait and its retry delay
  expect(hub.refused).toBe(refused);
  // Retired before it started: it registers once, is refused, and stops.
  const again = new Agent({ hub: hub.url, nodeId: 'edge-1', token: 't', stateDir: dir, executor: counting(), pollSeconds: 1, reportEveryMs: 60_000 });
  agents.push(again);
  await again.start();
  await again.refused;
  expect(hub.refused).toBe(refused + 1);
});

test('K5 the streams a poll names as removed are forgotten when stopped, then reported no more; a running one is kept', async () => {
  const executor = counting();
  await startAgent(executor);
  hub.deliver(lifecycle('at_start', 'job_start', 'leaving', 1), lifecycle('at_stop', 'job_stop', 'leaving', 2), lifecycle('at_other', 'job_start', 'busy', 1));
  // The report after the last result shows both.
  await waitFor(() => (hub.reportedStreams.at(-1)?.join() === 'busy,leaving' ? true : undefined));

  hub.removedStreams = [{ stream_id: 'busy', generation: 1 }, { stream_id: 'leaving', generation: 2 }];
  await waitFor(() => (hub.reportedStreams.at(-1)?.join() === 'busy' ? true : undefined));
  expect((await executor.observe()).map((s) => s.stream_id)).toEqual(['busy']);
});
