import { randomInt } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { RECONNECT_MS } from '../packages/hub/src/cli/commands/events.ts';
import { run } from '../packages/hub/src/cli/run.ts';
import { convergedButNotTrueProblems, NO_PROBLEMS, runProblems } from './fault/checks.ts';
import { AGENT_TIMEOUT_MS, startFleet, type AgentLine, type Fleet } from './fault/fleet.ts';
import { HubUnderFire } from './fault/hub.ts';
import { Operator, WriteTap, type OperatorLog } from './fault/operator.ts';
import { Random } from './fault/random.ts';
import { settle, startWorkload } from './fault/workload.ts';
import { fleetplane } from './support/cli.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { TOKENS } from './support/hub.ts';
import { freePort } from './support/ports.ts';
import { startRoundRobin, type FrontConnection, type FrontRequest, type RoundRobinFront } from './support/round-robin.ts';

// Three Hubs on one database behind one address (README, "Several Hubs"): a round-robin front hands each
// client connection to the next Hub. Real agents, operators and event-stream clients (`fleetplane events
// tail`) all talk to the front; a rollout is applying when one Hub is killed with SIGKILL while it holds
// long polls and an event stream. The other two carry on alone. Afterwards every invariant the
// fault-injection run checks holds, every agent reached a live Hub within its retry settings, and every
// event-stream client reconnected and missed no event and saw none twice.
//
// FLEETPLANE_FAULT_SEED replays a run's choices (the seed is printed, and named in every failure).
const SEED = Number(process.env.FLEETPLANE_FAULT_SEED ?? randomInt(2 ** 31));
const NODES = ['edge-1', 'edge-2', 'edge-3', 'edge-4'];
const REPORT_EVERY_MS = [500, 1000, 2000, 4000];
/**
 * An agent's next accepted report after the kill, at the latest: a report cut by the kill fails at once, or at
 * its time limit if it was swallowed; the next one leaves at most `reportEveryMs` after the last and is
 * answered within its own time limit, else it is not accepted. Nothing here is a timing goal: the bound
 * follows from the agent's settings (docs/agent-protocol.md, "The reference agent").
 */
const contactBoundMs = (reportEveryMs: number) => reportEveryMs + 2 * AGENT_TIMEOUT_MS;
/**
 * An event-stream client's new stream after the kill, at the latest: its connection ends with the Hub's,
 * `events tail` waits RECONNECT_MS, and a live Hub answers within the time limit the agents give any call.
 */
const RECONNECT_BOUND_MS = RECONNECT_MS + AGENT_TIMEOUT_MS;
/**
 * After the workload, how long everything has to settle. Generous: a job the dead Hub held active blocks
 * its key until pg-boss's monitor fails it (about 21 s, README "How late scheduled work may run"), and a lease
 * cut short by the kill must run out before a fresh report resolves its attempt.
 */
const SETTLE_WITHIN_MS = 90_000;
const REPORTS = ['all', 'changed', 'none'] as const;

let t: TestDatabase;
let dir: string;
let hubs: HubUnderFire[] = [];
let front: RoundRobinFront | null = null;
let fleet: Fleet | null = null;
let followers: Follower[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-several-'));
  for (const i of [1, 2, 3]) {
    await mkdir(join(dir, `hub-${i}`));
    hubs.push(new HubUnderFire({ databaseUrl: t.url, dir: join(dir, `hub-${i}`), port: await freePort(), nodes: NODES.length }));
  }
});

afterAll(async () => {
  await Promise.all(followers.map((f) => f.stop()));
  await fleet?.stop();
  await front?.close();
  await Promise.all(hubs.map((h) => h.abandon()));
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

/** `fleetplane events tail --json` in this process, from the log's start, with the time each event arrived. */
interface Follower {
  reports: (typeof REPORTS)[number];
  received: Array<{ cursor: string; at: number }>;
  /** Its streams, each with the front's connection that carried it. */
  streams(): Array<{ connection: FrontConnection; request: FrontRequest }>;
  /** Ctrl-C; resolves with its exit code. */
  stop(): Promise<number>;
}

function tail(url: string, reports: Follower['reports']): Follower {
  const interrupt = new AbortController();
  const received: Follower['received'] = [];
  let partial = '';
  const exited = run(['--json', 'events', 'tail', '--after', '0-0', '--reports', reports], {
    out: (text) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) received.push({ cursor: JSON.parse(line).cursor, at: Date.now() });
    },
    err: () => {},
    env: { FLEETPLANE_HUB: url, FLEETPLANE_TOKEN: TOKENS.viewer },
    signal: interrupt.signal,
  });
  const request = new RegExp(`^GET /api/v1/events/stream\\?reports=${reports} `);
  return {
    reports,
    received,
    streams: () => front!.connections.flatMap((connection) => connection.requests.filter((r) => request.test(r.line)).map((r) => ({ connection, request: r }))),
    stop: () => {
      interrupt.abort();
      return exited;
    },
  };
}

test(`C4 C5 C6 A4 G1 J2 J3 J4 three Hubs behind one address, one killed with SIGKILL mid-rollout: no acknowledged write lost or made twice, nothing sent twice, it verifies and settles, agents and event streams move to the live Hubs within their retry`, async () => {
  process.stdout.write(`several hubs: seed ${SEED} (FLEETPLANE_FAULT_SEED=${SEED} to replay)\n`);
  const rng = new Random(SEED);
  const log: OperatorLog = { acknowledged: [], problems: [], resent: 0, faultsArmed: 0 };
  await Promise.all(hubs.map((h) => h.start()));
  front = await startRoundRobin(hubs.map((h) => Number(new URL(h.url).port)));
  followers = REPORTS.map((r) => tail(front!.url, r));
  const agentLines: AgentLine[] = [];
  fleet = await startFleet(front.url, NODES, dir, { latencyMs: 150, reportEveryMs: REPORT_EVERY_MS, reviveAfterMs: 4000, log: (l) => agentLines.push(l) });
  const shared = { log, writes: new WriteTap(), fleet: fleet.nodes };
  // The operators arm every fault but agent crashes: a crashed simulated agent reaches no Hub until it is
  // revived, and each agent's contact after the kill is measured here (crashes are the fault-injection run's).
  const operators = [
    new Operator(front.url, rng.fork(), shared, { streams: ['alpha', 'bravo', 'charlie'], nodes: ['edge-1', 'edge-3'], rollouts: true, crashes: false }),
    new Operator(front.url, rng.fork(), shared, { streams: ['delta', 'echo', 'foxtrot'], nodes: ['edge-2', 'edge-4'], rollouts: false, crashes: false }),
  ];
  for (const o of operators) await o.setUp();
  await operators[0]!.rollOut();
  const stopWork = startWorkload(operators, rng);
  await new Promise((r) => setTimeout(r, 3000));

  // The moment: a rollout is applying, and some Hub holds an agent's long poll and an event stream.
  const open = (c: FrontConnection, upstream: number) => c.upstream === upstream && c.closed === null;
  const heldPolls = (upstream: number) =>
    front!.connections.filter((c) => {
      const latest = c.requests.at(-1);
      return open(c, upstream) && latest?.line.startsWith('GET /api/v1/agent/attempts') && latest.answered === null;
    });
  const victim = await eventually(async () => {
    const applying = await t.db.selectFrom('rollouts').select('rollout_id').where('state', '=', 'applying').executeTakeFirst();
    if (!applying) return undefined;
    const candidates = hubs.map((_, i) => i).filter((i) => heldPolls(i).length > 0 && followers.some((f) => f.streams().some((s) => open(s.connection, i))));
    return candidates.length > 0 ? rng.pick(candidates) : undefined;
  }, 60_000);
  const cutFollowers = followers.filter((f) => f.streams().some((s) => open(s.connection, victim)));
  const polls = heldPolls(victim).length;
  const killedAt = Date.now();
  await hubs[victim]!.kill(0, 0);

  // The two left serve on; then the workload stops and everything settles.
  await new Promise((r) => setTimeout(r, 6000));
  await stopWork();
  const left = await settle(t.db, fleet.nodes, operators, SETTLE_WITHIN_MS);
  const untrue = await convergedButNotTrueProblems(t.db, fleet.nodes);
  await fleet.stop();
  const ledger = fleet.ledger;
  fleet = null;

  // Each agent's first report the Hubs accepted after the kill.
  const { rows: firstReports } = await sql<{ node_id: string; at: Date }>`
    SELECT substr(stream_id, length('node:') + 1) AS node_id, min(recorded_at) AS at FROM events
    WHERE type = 'NodeReported' AND recorded_at > ${new Date(killedAt)} GROUP BY stream_id`.execute(t.db);
  const contact = NODES.map((node, i) => {
    const at = firstReports.find((r) => r.node_id === node)?.at.getTime();
    return { node, gapMs: at === undefined ? null : at - killedAt, boundMs: contactBoundMs(REPORT_EVERY_MS[i]!) };
  });
  const pollFailures = agentLines.filter((l) => l.message === 'attempt poll failed' && l.at >= killedAt).length;
  // The polls the kill cut: held by the victim and never answered. A poll held when the victim was chosen may be
  // answered in the moment before the kill (an attempt came for its node): that one was not cut.
  const cutPolls = front.connections
    .filter((c) => c.upstream === victim)
    .flatMap((c) => c.requests)
    .filter((r) => r.line.startsWith('GET /api/v1/agent/attempts') && r.sent < killedAt && r.answered === null).length;

  // Every event-stream client: its stream cut by the kill was followed by a new one, through the front to a live
  // Hub, and what it printed is the log (as `events export` reads it through the front, with the same
  // filter), to its end, in order: nothing missed, nothing twice.
  const logOf = async (reports: string) => {
    const exported = await fleetplane(['--json', 'events', 'export', '--reports', reports], { FLEETPLANE_HUB: front!.url, FLEETPLANE_TOKEN: TOKENS.viewer });
    return exported.lines().map((e: { cursor: string }) => e.cursor);
  };
  // The log may still grow after the workload (a backstop's pass): each client reached its end at one moment,
  // and what it printed by its stop is the log as far as it got.
  const reached = new Map<Follower, number>();
  for (const f of followers) {
    const end = await eventually(async () => {
      const log = await logOf(f.reports);
      return log.at(-1) === f.received.at(-1)?.cursor ? log.length : undefined;
    }, 30_000);
    reached.set(f, end);
  }
  const streams = [];
  for (const f of followers) {
    expect(await f.stop()).toBe(0);
    const cut = cutFollowers.includes(f);
    const next = f.streams().find((s) => s.request.sent >= killedAt && s.request.answered !== null);
    const printed = f.received.map((r) => r.cursor);
    expect(printed.length).toBeGreaterThanOrEqual(reached.get(f)!);
    streams.push({
      reports: f.reports,
      cut,
      reconnectMs: cut && next ? next.request.answered! - killedAt : null,
      toLiveHub: !cut || next?.connection.upstream !== victim,
      printed,
      log: (await logOf(f.reports)).slice(0, printed.length),
    });
  }
  followers = [];

  const served = hubs.map((_, i) => front!.connections.filter((c) => c.upstream === i && c.opened < killedAt).length);
  const exits = await Promise.all(hubs.map((h, i) => (i === victim ? null : h.stop())));
  await front.close();
  front = null;

  const problems = await runProblems(t.db, { log, ledger, stuck: left, untrue });
  expect({ seed: SEED, ...problems }).toEqual({ seed: SEED, ...NO_PROBLEMS });
  expect(exits.filter((_, i) => i !== victim)).toEqual([0, 0]);

  // Agents: each poll the kill cut failed at its agent, and every agent's next accepted report came within its bound.
  expect(polls).toBeGreaterThan(0);
  expect(pollFailures).toBeGreaterThanOrEqual(cutPolls);
  for (const c of contact) {
    expect(c.gapMs).not.toBeNull();
    expect(c.gapMs!).toBeLessThanOrEqual(c.boundMs);
  }
  // Event streams: at least one was on the dead Hub; each cut one reconnected to a live Hub within its bound;
  // every client printed exactly the log.
  expect(cutFollowers.length).toBeGreaterThan(0);
  for (const s of streams) {
    expect({ reports: s.reports, toLiveHub: s.toLiveHub, printed: s.printed }).toEqual({ reports: s.reports, toLiveHub: true, printed: s.log });
    if (s.cut) expect(s.reconnectMs).not.toBeNull();
    if (s.cut) expect(s.reconnectMs!).toBeLessThanOrEqual(RECONNECT_BOUND_MS);
  }

  // The workload did what it is for: every Hub served connections before the kill, attempts were executed,
  // and a rollout was acknowledged and (settled) went through all its batches.
  for (const n of served) expect(n).toBeGreaterThan(0);
  expect(ledger.executions.length).toBeGreaterThan(0);
  expect(log.acknowledged.some((a) => a.kind === 'rollout')).toBe(true);
  process.stdout.write(
    `several hubs: seed ${SEED}: killed hub ${victim + 1} holding ${polls} long polls (${cutPolls} cut, ${pollFailures} failed at their agents) and ${cutFollowers.length} event streams; ` +
      `agents' first report after the kill ${contact.map((c) => `${c.node} ${c.gapMs} ms (bound ${c.boundMs})`).join(', ')}; ` +
      `event streams back after ${streams.filter((s) => s.cut).map((s) => `${s.reconnectMs} ms`).join(', ')} (bound ${RECONNECT_BOUND_MS}); ` +
      `connections per Hub before the kill ${served.join('/')}; ` +
      `${log.acknowledged.length} writes acknowledged, ${log.resent} requests resent; ${ledger.executions.length} attempts executed\n`,
  );
}, 240_000);
