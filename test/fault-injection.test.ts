import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convergedButNotTrueProblems, NO_PROBLEMS, runProblems } from './fault/checks.ts';
import { startFleet, type Fleet } from './fault/fleet.ts';
import { HubUnderFire } from './fault/hub.ts';
import { Operator, WriteTap, type OperatorLog } from './fault/operator.ts';
import { Random } from './fault/random.ts';
import { settle, startWorkload } from './fault/workload.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { freePort } from './support/ports.ts';

// Fault injection: the Hub, a separate process, is killed with SIGKILL at random moments while a simulated
// fleet works against it over HTTP (real agents with the simulated executor; operators writing desired state,
// restarting, relabelling, draining and rolling configuration out), and started again on the same database.
// Afterwards: no acknowledged write lost or made twice, no attempt delivered or executed twice, every hash
// chain verifies and every projection rebuilds to the live tables, and no intent is left stuck.
//
// FLEETPLANE_FAULT_KILLS (default 3) sets how many kills; FLEETPLANE_FAULT_SEED replays a run's choices (the
// seed is printed, and named in every failure). Kill moments and the Hub's own timing still vary.
const KILLS = Number(process.env.FLEETPLANE_FAULT_KILLS ?? 3);
const SEED = Number(process.env.FLEETPLANE_FAULT_SEED ?? randomInt(2 ** 31));
const NODES = ['edge-1', 'edge-2', 'edge-3', 'edge-4'];
/**
 * After the last restart, how long everything has to settle. Generous: an intent waiting on a retry runs when
 * its scheduled job is fetched, which the job queue may do late (its polling), and a lease cut short by a kill
 * must run out before a fresh report resolves its attempt.
 */
const SETTLE_WITHIN_MS = 120_000;

let t: TestDatabase;
let dir: string;
let hub: HubUnderFire;
let fleet: Fleet | null = null;

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-fault-'));
  hub = new HubUnderFire({ databaseUrl: t.url, dir, port: await freePort(), nodes: NODES.length });
});

afterAll(async () => {
  await fleet?.stop();
  await hub.abandon();
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

test(`C4 C5 C6 A4 J2 J3 the Hub killed with SIGKILL ${KILLS} times under a fleet's workload loses no acknowledged write, sends nothing twice, verifies, and settles`, async () => {
  process.stdout.write(`fault injection: seed ${SEED}, ${KILLS} kills (FLEETPLANE_FAULT_SEED=${SEED} FLEETPLANE_FAULT_KILLS=${KILLS} to replay)\n`);
  const began = Date.now();
  const rng = new Random(SEED);
  const log: OperatorLog = { acknowledged: [], problems: [], resent: 0, faultsArmed: 0 };
  await hub.start();
  fleet = await startFleet(hub.url, NODES, dir, { latencyMs: 150, reportEveryMs: [500, 1000, 2000, 4000], reviveAfterMs: 4000 });
  const writes = new WriteTap();
  const shared = { log, writes, fleet: fleet.nodes };
  const operators = [
    new Operator(hub.url, rng.fork(), shared, { streams: ['alpha', 'bravo', 'charlie'], nodes: ['edge-1', 'edge-3'], rollouts: true }),
    new Operator(hub.url, rng.fork(), shared, { streams: ['delta', 'echo', 'foxtrot'], nodes: ['edge-2', 'edge-4'], rollouts: false }),
  ];
  for (const o of operators) await o.setUp();
  await operators[0]!.rollOut();

  // The workload runs throughout; the Hub is killed under it, KILLS times: at a random moment, or a few
  // milliseconds after a write left an operator (while the Hub handles it).
  const stopWork = startWorkload(operators, rng);
  const killer = rng.fork();
  while (hub.kills.length < KILLS) {
    const afterWrite = killer.chance(0.5) ? killer.int(0, 25) : null;
    const strike = afterWrite === null ? undefined : () => writes.next().then(() => new Promise<void>((r) => setTimeout(r, afterWrite)));
    await hub.kill(killer.int(300, 3000), killer.int(0, 2000), strike);
    if (hub.kills.length < KILLS && killer.chance(0.25)) await hub.killWhileStarting(killer.int(50, 1500));
    await hub.start();
  }
  await new Promise((r) => setTimeout(r, 2000));
  await stopWork();
  const workedMs = Date.now() - began;

  const left = await settle(t.db, fleet.nodes, operators, SETTLE_WITHIN_MS);
  const settledMs = Date.now() - began - workedMs;
  const untrue = await convergedButNotTrueProblems(t.db, fleet.nodes);

  await fleet.stop();
  const ledger = fleet.ledger;
  fleet = null;
  expect(await hub.stop()).toBe(0);

  // `stuck`: what is left unsettled SETTLE_WITHIN_MS after the last restart.
  const problems = await runProblems(t.db, { log, ledger, stuck: left, untrue });
  expect({ seed: SEED, ...problems }).toEqual({ seed: SEED, ...NO_PROBLEMS });

  // The workload did what it is for: the kills landed, requests were resent across them, attempts were
  // executed, and a rollout was acknowledged (and, settled, went through all its batches).
  const count = (kind: string) => log.acknowledged.filter((a) => a.kind === kind).length;
  const ambiguous = await t.db.selectFrom('attempts').select('attempt_id').where('state', '=', 'ambiguous').execute();
  expect(hub.kills).toHaveLength(KILLS);
  expect(log.resent).toBeGreaterThan(0);
  expect(ledger.executions.length).toBeGreaterThan(0);
  expect(count('rollout')).toBeGreaterThan(0);
  const summary = [
    `${hub.kills.length} kills (${hub.kills.filter((k) => k === 'starting').length} while starting)`,
    `${log.acknowledged.length} writes acknowledged (${count('stream')} desired, ${count('restart')} restarts, ${count('labels')} labels, ` +
      `${count('maintenance')} drains/undrains, ${count('rollout')} rollouts, ${count('rollout_action')} pauses/resumes)`,
    `${log.resent} requests resent`,
    `${log.faultsArmed} node faults armed`,
    `${ledger.executions.length} attempts executed, ${ambiguous.length} ambiguous`,
    `worked ${workedMs} ms, settled in ${settledMs} ms`,
  ];
  process.stdout.write(`fault injection: seed ${SEED}: ${summary.join('; ')}\n`);
}, 180_000 + KILLS * 20_000);
