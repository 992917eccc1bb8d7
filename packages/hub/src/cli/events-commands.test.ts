import { fleetplane } from '../../../../test/support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database.ts';
import { eventually, TestAgent } from '../../../../test/support/fleet.ts';
import { startTestHub, TOKENS, type TestHub } from '../../../../test/support/hub.ts';
import { freePort } from '../../../../test/support/ports.ts';
import { startRoundRobin } from '../../../../test/support/round-robin.ts';
import { EXIT } from './exit.ts';
import { run } from './run.ts';

// `events export` and `events tail` over the History API (SPEC J4): GET /api/v1/events and /api/v1/events/stream.

let t: TestDatabase;
let hub: TestHub;
beforeAll(async () => {
  t = await createTestDatabase();
  hub = await startTestHub(t.url);
  expect((await new TestAgent(hub, 'edge-1').register()).status).toBe(200);
});
afterAll(async () => {
  await hub.stop();
  await t.drop();
});

const viewer = (args: string[], signal?: AbortSignal) => fleetplane(args, { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer }, signal);
const label = async (env: string) => expect((await fleetplane(['label', 'edge-1', `env=${env}`], { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.operator })).code).toBe(0);
const cursorOf = (err: string) => /^cursor: (\S+)$/m.exec(err)![1]!;

/**
 * Exports until the export holds an event whose labels are `env`: the log is readable only below the oldest
 * running transaction, which other test files' transactions may hold back for a moment.
 */
const exportWith = (env: string, args: string[] = []) =>
  eventually(async () => {
    const r = await viewer(['events', 'export', ...args]);
    expect(r.code).toBe(EXIT.ok);
    return r.lines().some((e) => e.data.after?.env === env) ? r : undefined;
  });

test('events export prints NDJSON and the cursor to resume from; --after exports only what came since', async () => {
  await label('one');
  const first = await exportWith('one');
  const events = first.lines();
  expect(events.map((e) => e.position)).toEqual([...events.map((e) => e.position)].sort((a, b) => a - b));
  expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  expect(cursorOf(first.err)).toBe(events.at(-1).cursor);

  await label('two');
  const resumed = await exportWith('two', ['--after', cursorOf(first.err)]);
  expect(resumed.lines().map((e) => [e.stream_id, e.type, e.data.after])).toEqual([['node:edge-1', 'NodeLabelsReplaced', { env: 'two' }]]);
  const nothing = await viewer(['events', 'export', '--after', cursorOf(resumed.err)]);
  expect(nothing).toMatchObject({ code: EXIT.ok, out: '' });
  expect(cursorOf(nothing.err)).toBe(cursorOf(resumed.err));

  // Filtered: only edge-1's label replacements (the other test of this file adds its own), this test's last.
  const filtered = (await viewer(['events', 'export', '--stream', 'node:edge-1', '--type', 'NodeLabelsReplaced'])).lines();
  expect(new Set(filtered.map((e) => `${e.stream_id} ${e.type}`))).toEqual(new Set(['node:edge-1 NodeLabelsReplaced']));
  expect(filtered.slice(-2).map((e) => e.data.after)).toEqual([{ env: 'one' }, { env: 'two' }]);
  const refused = await viewer(['events', 'export', '--after', 'not-a-cursor']);
  expect(refused.code).toBe(EXIT.refused);
  expect(refused.err).toMatch(/^invalid_request: /);
});

test('events tail follows the log live from a cursor, filtered, and prints where it stopped', async () => {
  await label('before');
  const from = cursorOf((await exportWith('before')).err);
  const stop = new AbortController();
  let out = '';
  let err = '';
  const lines = () => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const env = { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer };
  const tailing = run(['--json', 'events', 'tail', '--after', from, '--type', 'NodeLabelsReplaced'], {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    env,
    signal: stop.signal,
  });
  await label('live-1');
  await label('live-2');
  await eventually(async () => (lines().length >= 2 ? true : undefined));
  stop.abort();
  expect(await tailing).toBe(EXIT.ok);
  expect(lines().map((e) => [e.type, e.data.after.env])).toEqual([
    ['NodeLabelsReplaced', 'live-1'],
    ['NodeLabelsReplaced', 'live-2'],
  ]);
  // Where it stopped is the last event it printed: resuming from there repeats nothing.
  expect(cursorOf(err)).toBe(lines().at(-1).cursor);
  expect((await viewer(['events', 'export', '--after', cursorOf(err), '--type', 'NodeLabelsReplaced'])).out).toBe('');
});

test('J4 events tail from now, its connection dropped before any event came, resumes where it started: nothing committed meanwhile is missed', async () => {
  const front = await startRoundRobin([Number(new URL(hub.url).port)]);
  const stop = new AbortController();
  let out = '';
  const lines = () => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const tailing = run(['--json', 'events', 'tail', '--type', 'NodeLabelsReplaced'], {
    out: (text) => void (out += text),
    err: () => {},
    env: { FLEETPLANE_HUB: front.url, FLEETPLANE_TOKEN: TOKENS.viewer },
    signal: stop.signal,
  });
  try {
    // Following: the stream's first bytes reached the tail.
    await eventually(async () => (front.connections[0]?.requests[0]?.answered ? true : undefined));
    front.drop();
    // Committed while the tail waits to reconnect, before its second connection.
    await label('while-away');
    expect(front.connections.length).toBe(1);
    await eventually(async () => (front.connections[1]?.requests[0]?.answered ? true : undefined));
    await label('after');
    await eventually(async () => (lines().some((e) => e.data.after.env === 'after') ? true : undefined));
  } finally {
    stop.abort();
    await front.close();
  }
  expect(await tailing).toBe(EXIT.ok);
  expect(lines().map((e) => e.data.after.env)).toEqual(['while-away', 'after']);
});

test('J4 events tail outlives a restart of its Hub: it retries the refused address every second, says so once, and resumes from its cursor', async () => {
  const port = await freePort();
  let restarting = await startTestHub(t.url, { port });
  const stop = new AbortController();
  let out = '';
  let err = '';
  const envs = () => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).data.after.env);
  const tailing = run(['--json', 'events', 'tail', '--type', 'NodeLabelsReplaced'], {
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    env: { FLEETPLANE_HUB: restarting.url, FLEETPLANE_TOKEN: TOKENS.viewer },
    signal: stop.signal,
  });
  try {
    await eventually(async () => (restarting.context.streams.followers.size > 0 ? true : undefined));
    await label('before-restart');
    await eventually(async () => (envs().includes('before-restart') ? true : undefined));
    await restarting.stop();
    // Committed (through the other Hub) while nothing answers at the tail's address; three refusals at least.
    await label('while-down');
    await new Promise((r) => setTimeout(r, 3_500));
    restarting = await startTestHub(t.url, { port });
    await label('after-restart');
    await eventually(async () => (envs().includes('after-restart') ? true : undefined));
  } finally {
    stop.abort();
  }
  expect(await tailing).toBe(EXIT.ok);
  await restarting.stop();
  expect(envs()).toEqual(['before-restart', 'while-down', 'after-restart']);
  expect(err.match(/reconnecting/g)).toHaveLength(1);
  expect(err).toMatch(new RegExp(`^cannot reach the Hub at ${restarting.url}: ECONNREFUSED; reconnecting every 1 s from the last cursor \\(Ctrl-C stops\\)\nreconnected to the Hub at ${restarting.url}\n`));
  expect(cursorOf(err)).toBe(JSON.parse(out.trim().split('\n').at(-1)!).cursor);
}, 30_000);

test('J4 events tail prints its cursor when it ends on a refusal, or on a Hub it never reached', async () => {
  await label('refusal-cursor');
  const from = cursorOf((await exportWith('refusal-cursor')).err);
  const refused = await fleetplane(['events', 'tail', '--after', from], { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: 'wrong-token' });
  expect(refused.code).toBe(EXIT.refused);
  expect(refused.err).toMatch(/^unauthenticated: /m);
  expect(cursorOf(refused.err)).toBe(from);
  // A wrong address at the start is said at once: nothing was followed there to wait for.
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const unreached = await fleetplane(['events', 'tail', '--after', from], { FLEETPLANE_HUB: nowhere, FLEETPLANE_TOKEN: TOKENS.viewer });
  expect(unreached.code).toBe(EXIT.unreachable);
  expect(unreached.err).toMatch(new RegExp(`^cannot reach the Hub at ${nowhere}: ECONNREFUSED\n`, 'm'));
  expect(cursorOf(unreached.err)).toBe(from);
});

/** edge-2's reports as `report <seq>` in printed events. */
const reportsOf = (events: any[]) => events.filter((e) => e.stream_id === 'node:edge-2' && e.type === 'NodeReported').map((e) => `report ${e.data.seq}`);

test('Issue 19 events export keeps every report unless --reports says otherwise; events tail leaves repeated ones out', async () => {
  const agent = new TestAgent(hub, 'edge-2');
  expect((await agent.register()).status).toBe(200);
  await label('reports-from');
  const from = cursorOf((await exportWith('reports-from')).err);
  for (let i = 1; i <= 4; i++) {
    // The third report changes what the node runs; the others repeat what it ran before.
    if (i === 3) agent.streams.set('ingest', { stream_id: 'ingest', generation: 1, state: 'running' });
    expect((await agent.report()).body.accepted).toBe(true);
  }
  await label('reported');
  const exported = (args: string[]) => exportWith('reported', ['--after', from, ...args]).then((r) => reportsOf(r.lines()));
  expect(await exported([])).toEqual(['report 1', 'report 2', 'report 3', 'report 4']);
  expect(await exported(['--reports', 'all'])).toEqual(['report 1', 'report 2', 'report 3', 'report 4']);
  expect(await exported(['--reports', 'changed'])).toEqual(['report 1', 'report 3']);
  expect(await exported(['--reports', 'none'])).toEqual([]);

  const stop = new AbortController();
  let out = '';
  const tailing = run(['--json', 'events', 'tail', '--after', from], { out: (text) => void (out += text), err: () => {}, env: { FLEETPLANE_HUB: hub.url, FLEETPLANE_TOKEN: TOKENS.viewer }, signal: stop.signal });
  const tailed = await eventually(async () => {
    const events = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return events.some((e) => e.data.after?.env === 'reported') ? events : undefined;
  });
  stop.abort();
  expect(await tailing).toBe(EXIT.ok);
  expect(reportsOf(tailed)).toEqual(['report 1', 'report 3']);

  const refused = await viewer(['events', 'export', '--reports', 'some']);
  expect(refused.code).toBe(EXIT.refused);
  expect(refused.err).toMatch(/^invalid_request: /);
});
