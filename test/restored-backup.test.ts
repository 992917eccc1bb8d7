import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import winston from 'winston';
import { Agent } from '../packages/agent/src/agent.ts';
import { createSimExecutor, type SimExecutor } from '../packages/agent/src/executors/sim.ts';
import type { Level } from '../packages/agent/src/log.ts';
import { createLogger } from '../packages/hub/src/logger.ts';
import { createTestDatabase, snapshotDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, startTestHub, testConfig, TOKENS, type TestHub } from './support/hub.ts';

// A disaster-recovery drill (db/README.md, "Backups"), as an SRE runs it: the Hub's database is copied while
// the Hub and its agents run (the backup), the fleet goes on (a node joins, streams get new generations, a
// rollout ends and a later version is rolled out, attempts are answered), then the Hub comes back on the copy
// at the same address. The agents
// never stop: they hold newer state than the restored log knows. The copy is PostgreSQL's own of a whole
// database (`CREATE DATABASE … TEMPLATE`, support/database.ts snapshotDatabase), as `pg_dump` would hold it:
// every commit before, pg-boss's jobs as they stood included, nothing after. The restored Hub finds the database's
// identity changed and sends nothing to a node until it reports (db/README.md, "After a restore"): two nodes are
// kept silent across the switch to show it.
let original: TestDatabase;
let restored: TestDatabase;
let hub: TestHub;
let dir: string;
type AgentLine = { level: Level; message: string; fields: Record<string, unknown> };
const agents = new Map<string, { agent: Agent; sim: SimExecutor; lines: AgentLine[] }>();
/** Attempts a node takes wait here until the test lets them run (hold), so that they are out across a backup or a switch. */
const gates = new Map<string, { until: Promise<void>; release: () => void }>();
function hold(nodeId: string): () => void {
  let resolve!: () => void;
  const until = new Promise<void>((r) => (resolve = r));
  const release = () => {
    if (gates.get(nodeId)?.until === until) gates.delete(nodeId);
    resolve();
  };
  gates.set(nodeId, { until, release });
  return release;
}
/** What the Hub on the restored database logged at warn and above. */
const restoredLines: { level: string; message: string }[] = [];
const statuses: number[] = [];

const config = testConfig(7, { mode: 'configuration', lease_ms: 4000 });
const logger = (into: { level: string; message: string }[]) =>
  createLogger('warn', false, [
    new winston.transports.Stream({
      stream: new Writable({
        write(chunk, _encoding, done) {
          const line = JSON.parse(String(chunk));
          into.push({ level: line.level, message: line.message });
          done();
        },
      }),
    }),
  ]);
const start = (url: string, lines: { level: string; message: string }[], port = 0) =>
  startTestHub(url, { config, logger: logger(lines), sweepEveryMs: 200, resyncEveryMs: 1000, port });

/** Starts the node's agent: a new one, or (after stopAgent) the same node again, holding what it held. */
async function startAgent(nodeId: string): Promise<void> {
  const sim = agents.get(nodeId)?.sim ?? createSimExecutor();
  const lines: AgentLine[] = [];
  const agent = new Agent({
    hub: hub.url,
    nodeId,
    token: agentToken(nodeId),
    stateDir: join(dir, nodeId),
    executor: {
      ...sim,
      async apply(command) {
        await gates.get(nodeId)?.until;
        return sim.apply(command);
      },
    },
    pollSeconds: 1,
    reportEveryMs: 200,
    log: (level, message, fields = {}) => lines.push({ level, message, fields }),
  });
  agents.set(nodeId, { agent, sim, lines });
  expect(await agent.start()).toBe(true);
}
const stopAgent = (nodeId: string) => agents.get(nodeId)!.agent.stop();

const call = async (method: string, path: string, body?: unknown) => {
  const answer = await hub.call(method, path, { token: TOKENS.operator, ...(body !== undefined && { body }) });
  statuses.push(answer.status);
  return answer;
};
const put = (id: string, body: Record<string, unknown>) => call('PUT', `/api/v1/streams/${id}`, body);
const stream = async (id: string) => (await call('GET', `/api/v1/streams/${id}`)).body;
const convergedAt = (id: string, generation: number, node: string) =>
  eventually(async () => {
    const s = await stream(id);
    const intent = s.intents?.find((i: { generation: number; node_id: string }) => i.generation === generation && i.node_id === node);
    return s.observed?.[node]?.generation === generation && intent?.state === 'converged' ? s : undefined;
  }, 20_000);
const rolloutState = async (id: string) => (await call('GET', `/api/v1/rollouts/${id}`)).body.state;
const rolloutIntents = async () => (await call('GET', `/api/v1/intents?rollout_id=${rolloutId}`)).body.items;

let rolloutId: string;
/** The version rolled out after the backup, which the restored log does not know. */
let laterVersion: string;
/** The rollout of that version again, made on the restored Hub. */
let rollForward: string;
/** The intent of `slow` whose attempt was out (dispatched) when the backup was taken. */
let inFlight: string;
/** slow's attempt of generation 2, made after the backup and out when the original was lost; and its release. */
let lostAttempt: string;
let releaseLost: () => void;
/** A rollout whose first batch was out at the backup, with batches to start on edge-6 (not ahead) and edge-5 (ahead). */
let batches: string;
/** A rollout whose apply on edge-7 was queued at the backup, cancelled after it: edge-7 took the later version instead. */
let queuedAtBackup: string;
let queuedIntent: string;

beforeAll(async () => {
  original = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-restored-'));
  hub = await start(original.url, []);
  for (const n of ['edge-1', 'edge-2']) await startAgent(n);
  expect((await put('s1', { desired_state: 'running', spec: { v: 'a' }, placement: { nodes: ['edge-1'] } })).status).toBe(200);
  await convergedAt('s1', 1, 'edge-1');
  for (const n of ['edge-4', 'edge-5', 'edge-6', 'edge-7']) await startAgent(n);
  // An apply queued at the backup: its node's agent is away when the rollout starts.
  await stopAgent('edge-7');
  const queuedVersion = (await call('POST', '/api/v1/config-versions', { content: 'c7', format: 'text' })).body.config_version;
  queuedAtBackup = (await call('POST', '/api/v1/rollouts', { config_version: queuedVersion, targets: { nodes: ['edge-7'] }, batch_size: 1 })).body.rollout_id;
  queuedIntent = await eventually(async () => {
    const [i] = (await call('GET', `/api/v1/intents?rollout_id=${queuedAtBackup}`)).body.items;
    return i?.state === 'converging' ? i.intent_id : undefined;
  });
  // A rollout in batches of one: its first batch's apply is out on edge-4 at the backup.
  const releaseBatch = hold('edge-4');
  const batchVersion = (await call('POST', '/api/v1/config-versions', { content: 'c4', format: 'text' })).body.config_version;
  batches = (await call('POST', '/api/v1/rollouts', { config_version: batchVersion, targets: { nodes: ['edge-4', 'edge-6', 'edge-5'] }, batch_size: 1 })).body.rollout_id;
  await eventually(async () => {
    const [i] = (await call('GET', `/api/v1/intents?rollout_id=${batches}`)).body.items;
    return i && (await call('GET', `/api/v1/intents/${i.intent_id}`)).body.attempts[0]?.state === 'dispatched' ? true : undefined;
  });
  const version = (await call('POST', '/api/v1/config-versions', { content: 'c1', format: 'text' })).body.config_version;
  // A rollout in flight: its first batch's apply is out on edge-1 when the backup is taken.
  const releaseApply = hold('edge-1');
  const created = await call('POST', '/api/v1/rollouts', { config_version: version, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 1 });
  expect(created.status).toBe(201);
  rolloutId = created.body.rollout_id;
  await eventually(async () => ((await rolloutIntents())[0]?.state === 'converging' ? true : undefined));
  // An attempt out when the backup is taken: its node holds `slow`'s start until after it. Dispatched last, just
  // before the copy, so that its lease is still running then however slow the machine.
  const releaseSlow = hold('edge-2');
  expect((await put('slow', { desired_state: 'running', spec: {}, placement: { nodes: ['edge-2'] } })).status).toBe(200);
  inFlight = await eventually(async () => {
    const intent = (await stream('slow')).intents[0];
    return intent.state === 'converging' ? intent.intent_id : undefined;
  });

  // The backup: the rollout in flight, slow's attempt out.
  restored = await snapshotDatabase(original);
  const { rows } = await sql<{ rollout: string; attempt: string; queued: string }>`
    SELECT (SELECT state FROM rollouts WHERE rollout_id = ${rolloutId}) AS rollout,
           (SELECT state FROM attempts WHERE intent_id = ${inFlight}) AS attempt,
           (SELECT state FROM attempts WHERE intent_id = ${queuedIntent}) AS queued`.execute(restored.db);
  expect(rows[0]).toEqual({ rollout: 'applying', attempt: 'dispatched', queued: 'queued' });

  // After it, the rollout in batches ends on every node; the apply queued for edge-7 is withdrawn by a cancel.
  releaseBatch();
  await eventually(async () => ((await rolloutState(batches)) === 'converged' ? true : undefined), 20_000);
  expect((await call('POST', `/api/v1/rollouts/${queuedAtBackup}/actions`, { action: 'cancel' })).status).toBe(200);
  await startAgent('edge-7');

  // After it: a node joins, s1 gets a new generation, s2 is made (twice written), the rollout ends, slow starts.
  await startAgent('edge-3');
  releaseSlow();
  releaseApply();
  expect((await put('s1', { desired_state: 'running', spec: { v: 'b' }, placement: { nodes: ['edge-1'] } })).status).toBe(200);
  await convergedAt('s1', 2, 'edge-1');
  for (const v of ['a', 'b']) expect((await put('s2', { desired_state: 'running', spec: { v }, placement: { nodes: ['edge-3'] } })).status).toBe(200);
  await convergedAt('s2', 2, 'edge-3');
  await convergedAt('slow', 1, 'edge-2');
  await eventually(async () => ((await rolloutState(rolloutId)) === 'converged' ? true : undefined), 20_000);
  // A later version rolled out to the rollout's nodes: the restored log will know neither it nor its rollout.
  laterVersion = (await call('POST', '/api/v1/config-versions', { content: 'c2', format: 'text' })).body.config_version;
  const later = await call('POST', '/api/v1/rollouts', { config_version: laterVersion, targets: { nodes: ['edge-1', 'edge-2', 'edge-5', 'edge-7'] }, batch_size: 4 });
  expect(later.status).toBe(201);
  await eventually(async () => ((await rolloutState(later.body.rollout_id)) === 'converged' ? true : undefined), 20_000);
  // Two nodes are away when the Hub comes back: edge-6, holding a version the restored log knows, and edge-5, a later one.
  await stopAgent('edge-5');
  await stopAgent('edge-6');
  // An attempt out when the original is lost: slow's generation 2 (its answer goes to the restored Hub).
  releaseLost = hold('edge-2');
  expect((await put('slow', { desired_state: 'running', spec: { v: 'b' }, placement: { nodes: ['edge-2'] } })).status).toBe(200);
  lostAttempt = await eventually(async () => {
    const intent = (await stream('slow')).intents.find((i: { generation: number }) => i.generation === 2);
    return intent?.state === 'converging' ? (await call('GET', `/api/v1/intents/${intent.intent_id}`)).body.attempts[0].attempt_id : undefined;
  });

  // The disaster: the Hub comes back on the restored database, at the same address.
  const port = Number(new URL(hub.url).port);
  await hub.stop();
  hub = await start(restored.url, restoredLines, port);
}, 120_000);

afterAll(async () => {
  // An agent stops once its attempts in progress end: a failed test may have left one held.
  for (const { release } of [...gates.values()]) release();
  for (const { agent } of agents.values()) await agent.stop();
  await hub.stop();
  await rm(dir, { recursive: true, force: true });
  await original.drop();
  await restored.drop();
});

test('restored backup: the Hub starts on it; the node that joined after the backup registers again and every running node reports', async () => {
  await eventually(async () => {
    const nodes = (await call('GET', '/api/v1/nodes')).body.items;
    const running = nodes.filter((n: { node_id: string }) => !['edge-5', 'edge-6'].includes(n.node_id));
    return nodes.length === 7 && running.every((n: { liveness: string }) => n.liveness === 'online') ? true : undefined;
  });
  expect(agents.get('edge-3')!.lines).toContainEqual(
    expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^report refused: the Hub has no registration of this node/) }),
  );
});

test("restored backup: the Hub records the database's changed identity, says so, and counts the nodes it has not heard from since", async () => {
  expect(restoredLines).toContainEqual({ level: 'warn', message: expect.stringMatching(/^the database is not the one this Hub's log was last written in/) });
  const { rows } = await sql<{ previous: object | null }>`SELECT data->'previous' AS previous FROM event_history WHERE stream_id = 'database:identity' ORDER BY stream_version`.execute(restored.db);
  expect(rows.map((r) => r.previous === null)).toEqual([true, false]);
  const ready = (await call('GET', '/readyz')).body;
  expect(ready.checks.database.detail).toMatch(/^restored at \S+: nothing is sent to a node until it reports since/);
  // edge-5 and edge-6 are away; every other node has reported.
  await eventually(async () => ((await (await fetch(hub.url + '/metrics')).text()).match(/^fleetplane_nodes_unheard_since_restore 2$/m) ? true : undefined));
});

test("restored backup: a batch starting on a node not heard from since the restore is not sent until it reports; then it applies there, or, the node ahead of the log, is blocked node_ahead_of_log", async () => {
  const target = async (nodeId: string) => {
    const found = (await call('GET', `/api/v1/rollouts/${batches}`)).body.targets.find((t: { node_id: string }) => t.node_id === nodeId);
    return found?.intent_id ? { ...found, intent: (await call('GET', `/api/v1/intents/${found.intent_id}`)).body } : found;
  };
  const waitsForReport = async (nodeId: string) => {
    // The first batch's apply, out at the backup, is proven by edge-4's report; the next batch starts on the silent node.
    const t = await eventually(async () => {
      const found = await target(nodeId);
      return found?.state === 'applying' && found.intent?.waiting_on?.kind === 'database_restored' ? found : undefined;
    }, 20_000);
    expect(t.waiting_on).toMatchObject({ kind: 'database_restored', node_id: nodeId });
    expect(t.intent.waiting_on.message).toMatch(new RegExp(`^the Hub's database was restored at \\S+ .* and node ${nodeId} has not reported since: nothing is sent to it until it reports what it holds$`));
    // Nothing was sent, and nothing is while it stays away.
    await hub.context.reconciler.reconcile(nodeId, 'test');
    expect((await call('GET', `/api/v1/intents/${t.intent_id}`)).body.attempts).toEqual([]);
  };
  await waitsForReport('edge-6');
  await startAgent('edge-6');
  await eventually(async () => ((await target('edge-6'))?.state === 'converged' ? true : undefined), 20_000);
  await waitsForReport('edge-5');
  await startAgent('edge-5');
  const paused = await eventually(async () => {
    const r = (await call('GET', `/api/v1/rollouts/${batches}`)).body;
    return r.state === 'paused' ? r : undefined;
  }, 20_000);
  expect(paused.targets.find((t: { node_id: string }) => t.node_id === 'edge-5')).toMatchObject({ state: 'failed', failure_code: 'node_ahead_of_log' });
  expect((await target('edge-5')).intent.attempts).toEqual([]);
  expect(agents.get('edge-5')!.sim.configContent()).toBe('c2');
  await eventually(async () => ((await (await fetch(hub.url + '/metrics')).text()).match(/^fleetplane_nodes_unheard_since_restore 0$/m) ? true : undefined));
});

test('C5 restored backup: an apply queued at the backup, withdrawn by writes the restore lost, is not delivered to its node ahead of the log: its intent is blocked node_ahead_of_log', async () => {
  const intent = await eventually(async () => {
    const i = (await call('GET', `/api/v1/intents/${queuedIntent}`)).body;
    return i.state === 'blocked' ? i : undefined;
  }, 20_000);
  expect(intent).toMatchObject({ failure_code: 'node_ahead_of_log', waiting_on: { kind: 'new_generation' } });
  expect(intent.attempts.map((a: { state: string }) => a.state)).toEqual(['superseded']);
  expect(agents.get('edge-7')!.sim.configContent()).toBe('c2');
  await eventually(async () => ((await rolloutState(queuedAtBackup)) === 'paused' ? true : undefined));
});

test('restored backup: an attempt out at the backup is not sent again; the next report proves it', async () => {
  // Its lease runs out (the sweep makes it ambiguous), and the report proves the intent: no second attempt.
  const intent = await eventually(async () => {
    const i = (await call('GET', `/api/v1/intents/${inFlight}`)).body;
    return i.state === 'converged' && i.attempts.every((a: { state: string }) => a.state !== 'dispatched') ? i : undefined;
  });
  expect(intent.attempts.map((a: { state: string }) => a.state)).toEqual(['ambiguous']);
});

test('restored backup: the result of an attempt the restored log never made is refused 404 once, and its agent goes on', async () => {
  releaseLost();
  const lines = agents.get('edge-2')!.lines;
  const refused = await eventually(async () => {
    const found = lines.filter((l) => l.message === 'result not delivered' && l.fields.attempt_id === lostAttempt);
    return found.length > 0 ? found : undefined;
  });
  expect(refused).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ status: 404, code: 'attempt_not_found' }) })]);
  expect((await call('GET', `/api/v1/attempts/${lostAttempt}`)).status).toBe(404);
  // Its node reports the generation the attempt ran, and goes on being online.
  await eventually(async () => ((await stream('slow')).observed['edge-2']?.generation === 2 ? true : undefined));
  expect((await call('GET', '/api/v1/nodes/edge-2')).body.liveness).toBe('online');
});

test('C5 restored backup: the rollout in flight at the backup does not send its lost apply again to the node holding the later version; it pauses, saying why', async () => {
  // Its apply's answer was lost, and the node's report, which would reopen it (C5), names a version the log does not know.
  const rollout = await eventually(async () => {
    const r = (await call('GET', `/api/v1/rollouts/${rolloutId}`)).body;
    return r.state === 'paused' ? r : undefined;
  });
  expect(rollout).toMatchObject({ paused_reason: 'target_failed' });
  expect(rollout.targets[0]).toMatchObject({
    node_id: 'edge-1',
    state: 'failed',
    failure_code: 'node_ahead_of_log',
    failure_message: expect.stringMatching(/^node edge-1 reports a configuration version this Hub's log does not know .*resume the rollout, or roll out a version, to apply over it$/),
  });
  const [intent] = await rolloutIntents();
  expect((await call('GET', `/api/v1/intents/${intent.intent_id}`)).body.attempts.map((a: { state: string }) => a.state)).toEqual(['ambiguous']);
  // The node keeps the later version: the restored log's older one was not put back.
  expect(agents.get('edge-1')!.sim.configContent()).toBe('c2');
  expect((await call('GET', '/api/v1/nodes/edge-1')).body.applied_config_version).toBe(laterVersion);
});

test('restored backup: the later version, created again and rolled out once the restored rollout is cancelled, applies at once and waits, saying why, for the stream its node runs past the restored generation', async () => {
  expect((await call('POST', `/api/v1/rollouts/${rolloutId}/actions`, { action: 'cancel' })).status).toBe(200);
  const again = (await call('POST', '/api/v1/config-versions', { content: 'c2', format: 'text' })).body.config_version;
  const created = await call('POST', '/api/v1/rollouts', { config_version: again, targets: { nodes: ['edge-1', 'edge-2'] }, batch_size: 2 });
  expect(created.status).toBe(201);
  rollForward = created.body.rollout_id;
  // The node applies it, and reports it with s1 at a generation the restored log never wrote: configuration
  // converges only with every stream there at its desired one (A10).
  const waiting = await eventually(async () => {
    const intent = (await call('GET', `/api/v1/intents?rollout_id=${rollForward}&node_id=edge-1`)).body.items[0];
    return intent?.state === 'converging' && intent.waiting_on?.kind === 'stream_converging' ? intent.waiting_on : undefined;
  });
  expect(waiting).toMatchObject({ stream_id: 's1', message: expect.stringMatching(/node reports generation 2: a write this Hub's log does not hold/) });
});

test('restored backup: drift shows the stream a node runs past the restored generation and the one only lost writes made; /metrics counts them', async () => {
  const drift = await eventually(async () => {
    const items = (await call('GET', '/api/v1/drift')).body.items.filter((d: { stream_id: string | null }) => d.stream_id !== null);
    return items.length === 3 ? items : undefined;
  });
  expect(drift).toEqual([
    expect.objectContaining({ node_id: 'edge-1', stream_id: 's1', kind: 'generation_mismatch', desired_generation: 1, observed_generation: 2 }),
    expect.objectContaining({ node_id: 'edge-2', stream_id: 'slow', kind: 'generation_mismatch', desired_generation: 1, observed_generation: 2 }),
    expect.objectContaining({ node_id: 'edge-3', stream_id: 's2', kind: 'generation_mismatch', desired_generation: null, desired_state: null, observed_generation: 2, observed_state: 'running' }),
  ]);
  expect(await (await fetch(hub.url + '/metrics')).text()).toMatch(/^fleetplane_streams_ahead_of_log 3$/m);
});

test('restored backup: a write goes past the generation its node runs, which runs it, rather than being taken for the one the node ran', async () => {
  const written = await put('s1', { desired_state: 'running', spec: { v: 'c' }, placement: { nodes: ['edge-1'] } });
  expect(written.status).toBe(200);
  expect(written.body.generation).toBe(3);
  await convergedAt('s1', 3, 'edge-1');
  const { rows } = await sql<{ data: { generation: number; reported_generation?: number } }>`
    SELECT data FROM event_history WHERE stream_id = 'stream:s1' AND type = 'StreamDesired' ORDER BY stream_version DESC LIMIT 1`.execute(restored.db);
  expect(rows[0]!.data).toMatchObject({ generation: 3, reported_generation: 2 });
});

test('restored backup: a stream only lost writes made is stopped by a write past its generation, then deleted and forgotten by its node', async () => {
  expect((await put('s2', { desired_state: 'stopped', spec: {}, placement: { nodes: ['edge-3'] } })).status).toBe(200);
  await convergedAt('s2', 3, 'edge-3');
  expect((await call('DELETE', '/api/v1/streams/s2')).status).toBe(202);
  await eventually(async () => ((await call('GET', '/api/v1/streams/s2')).status === 404 ? true : undefined));
  await eventually(async () => ((await agents.get('edge-3')!.sim.observe()).length === 0 ? true : undefined));
});

test('restored backup: once every stream a node ran past the log is written again, drift and /metrics show nothing of the restore but the versions the operator has still to decide on', async () => {
  expect((await put('slow', { desired_state: 'running', spec: { v: 'b' }, placement: { nodes: ['edge-2'] } })).status).toBe(200);
  await convergedAt('slow', 3, 'edge-2');
  // edge-5 and edge-7 keep the later version where their paused rollouts want theirs.
  const nodesOf = (items: Array<{ node_id: string; stream_id: string | null }>) => items.map((d) => `${d.node_id} ${d.stream_id}`).join();
  await eventually(async () => (nodesOf((await call('GET', '/api/v1/drift')).body.items) === 'edge-5 null,edge-7 null' ? true : undefined));
  expect(await (await fetch(hub.url + '/metrics')).text()).toMatch(/^fleetplane_streams_ahead_of_log 0$/m);
});

test('restored backup: with those streams written, the roll-forward ends converged on the version its nodes held', async () => {
  await eventually(async () => ((await rolloutState(rollForward)) === 'converged' ? true : undefined), 20_000);
});

test('restored backup: nothing answered 5xx and the restored Hub logged no error', () => {
  expect(statuses.filter((s) => s >= 500)).toEqual([]);
  expect(restoredLines.filter((l) => l.level === 'error')).toEqual([]);
});
