import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { freePort } from './support/ports.ts';
import { startAgentProcess, startConfiguredHub, type AgentProcess, type HubProcess } from './support/process.ts';

// SPEC E3, E4 end to end: the Hub and two agents as separate processes on loopback; a split stream whose
// child processes, started by the process executor, find each other by the data addresses their job_start
// carried and trade a hello over TCP (test/fixtures/split-peer/peer.mjs). Then one node moves its data
// address, and the placement's new generation connects them again on the new one.

let t: TestDatabase;
let dir: string;
let marks: string;
let hub: HubProcess;
const agents = new Map<string, AgentProcess>();

async function startAgent(n: number, dataPort: number): Promise<void> {
  const nodeId = `edge-${n}`;
  agents.set(
    nodeId,
    await startAgentProcess({
      hub: hub.url,
      'node-id': nodeId,
      token: agentToken(nodeId),
      'state-dir': join(dir, nodeId),
      capabilities: 'network_shuffle',
      'data-address': `127.0.0.1:${dataPort}`,
      'report-every-ms': '500',
      'poll-seconds': '5',
    }),
  );
}

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-split-'));
  marks = join(dir, 'marks');
  await mkdir(marks);
  hub = await startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig(2).file });
}, 60_000);

afterAll(async () => {
  for (const a of agents.values()) await a.stop('SIGKILL');
  await hub.stop('SIGKILL');
  // The children outlive their agents: stop them by the pids their executors recorded.
  for (const n of [1, 2]) {
    try {
      const { pid } = JSON.parse(await readFile(join(dir, `edge-${n}`, 'streams', 'shuffle', 'state.json'), 'utf8')) as { pid?: number };
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // never started there, or already gone
    }
  }
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const heard = (index: number, what: string) =>
  eventually(async () => {
    const file = join(marks, `peer-${index}.log`);
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
    return lines.find((l) => l.includes(what));
  }, 30_000);

test('E3 E4 a split stream\'s processes on two agents connect to each other over the data addresses they were given, and again after one moves', async () => {
  const [first, second, moved] = [await freePort(), await freePort(), await freePort()];
  await startAgent(1, first);
  await startAgent(2, second);
  const body = {
    desired_state: 'running',
    spec: { command: process.execPath, args: [join(__dirname, 'fixtures/split-peer/peer.mjs')], env: { MARK_DIR: marks } },
    placement: { nodes: ['edge-1', 'edge-2'], split: true },
  };
  expect((await caller(hub.url).call('PUT', '/api/v1/streams/shuffle', { token: TOKENS.operator, body })).status).toBe(200);

  // Node 0 (edge-1) listened on its own address; node 1 (edge-2) connected to it there, as FLEETPLANE_PEERS said.
  expect(await heard(0, `heard "hello from edge-2 (1 of 2)" on 127.0.0.1:${first}`)).toBeDefined();
  expect(await heard(1, `heard "hello from edge-1 (0 of 2)" from 127.0.0.1:${first}`)).toBeDefined();

  // edge-1's agent comes back with another data address: the Hub starts the placement again (E4), and the
  // new processes meet on the new address.
  await agents.get('edge-1')!.stop('SIGKILL');
  await startAgent(1, moved);
  expect(await heard(0, `heard "hello from edge-2 (1 of 2)" on 127.0.0.1:${moved}`)).toBeDefined();
  expect(await heard(1, `heard "hello from edge-1 (0 of 2)" from 127.0.0.1:${moved}`)).toBeDefined();
  const stream = (await caller(hub.url).call('GET', '/api/v1/streams/shuffle')).body;
  expect(stream.generation).toBe(2);
}, 90_000);
