import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { freePort } from './support/ports.ts';
import { startAgentProcess, startConfiguredHub, type AgentProcess, type HubProcess } from './support/process.ts';

// The Hub and three agents as separate OS processes on loopback, running real child processes.
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
let hubPort: number;
const agents = new Map<string, AgentProcess>();

const startHub = (): Promise<HubProcess> => startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig(3, { lease_ms: 3000 }).file, port: hubPort });

async function startAgent(n: number, extra: Record<string, string> = {}): Promise<AgentProcess> {
  const nodeId = `edge-${n}`;
  const agent = await startAgentProcess({
    hub: `http://127.0.0.1:${hubPort}`,
    'node-id': nodeId,
    token: agentToken(nodeId),
    'state-dir': join(dir, nodeId),
    capabilities: 'network_shuffle',
    'data-address': `127.0.0.1:${7000 + n}`,
    'report-every-ms': '500',
    'poll-seconds': '5',
    ...extra,
  });
  agents.set(nodeId, agent);
  return agent;
}

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-fleet-'));
  hubPort = await freePort();
  hub = await startHub();
  for (const n of [1, 2, 3]) await startAgent(n);
}, 60_000);

afterAll(async () => {
  for (const a of agents.values()) await a.stop('SIGKILL');
  await hub.stop('SIGKILL');
  // Children the process executor started run on after their agent: stop them by their recorded pids.
  await stopWorkloads();
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

const api = () => caller(hub.url);
const worker = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
const put = (id: string, body: Record<string, unknown>) => api().call('PUT', `/api/v1/streams/${id}`, { token: TOKENS.operator, body });
const converged = (id: string, generation: number, nodes: string[]) =>
  eventually(async () => {
    const s = (await api().call('GET', `/api/v1/streams/${id}`)).body;
    const ok = nodes.every((n) => s.observed?.[n]?.generation === generation && s.observed[n].state === s.desired_state);
    const intents = s.intents?.filter((i: { generation: number }) => i.generation === generation) ?? [];
    return ok && intents.length === nodes.length && intents.every((i: { state: string }) => i.state === 'converged') ? s : undefined;
  }, 30_000);

test('a split stream converges on three nodes, each running a real process', async () => {
  const r = await put('split', { desired_state: 'running', spec: worker, placement: { nodes: ['edge-1', 'edge-2', 'edge-3'], split: true } });
  expect(r.status).toBe(200);
  const s = await converged('split', 1, ['edge-1', 'edge-2', 'edge-3']);
  expect(Object.keys(s.observed).sort()).toEqual(['edge-1', 'edge-2', 'edge-3']);
}, 40_000);

test('an agent offline through several desired writes reconnects and converges straight to the latest generation', async () => {
  await put('offline', { desired_state: 'running', spec: worker, placement: { nodes: ['edge-2'] } });
  await converged('offline', 1, ['edge-2']);
  await agents.get('edge-2')!.stop('SIGKILL');
  for (const args of [['1'], ['2'], ['3']]) {
    await put('offline', { desired_state: 'running', spec: { ...worker, args: [...worker.args, ...args] }, placement: { nodes: ['edge-2'] } });
  }
  await startAgent(2);
  await converged('offline', 4, ['edge-2']);
  const delivered = (await api().call('GET', '/api/v1/intents?stream_id=offline&node_id=edge-2')).body.items
    .filter((i: { state: string }) => i.state === 'converged')
    .map((i: { generation: number }) => i.generation);
  expect(delivered).toEqual([4, 1]);
}, 60_000);

test('drain keeps streams running and sends nothing; undrain resumes at the current generation', async () => {
  await put('drained', { desired_state: 'running', spec: worker, placement: { nodes: ['edge-3'] } });
  await converged('drained', 1, ['edge-3']);
  expect((await api().call('POST', '/api/v1/nodes/edge-3/drain', { token: TOKENS.operator })).body.maintenance).toBe('draining');
  await put('drained', { desired_state: 'stopped', spec: worker, placement: { nodes: ['edge-3'] } });
  // Still running: a drained node takes no attempts.
  const s = (await api().call('GET', '/api/v1/streams/drained')).body;
  expect(s.observed['edge-3']).toMatchObject({ generation: 1, state: 'running' });
  await api().call('POST', '/api/v1/nodes/edge-3/undrain', { token: TOKENS.operator });
  await converged('drained', 2, ['edge-3']);
}, 40_000);

test('K5 a deleted stream leaves its nodes: once the Hub removed it, each agent forgets it, its directory and output included', async () => {
  const nodes = ['edge-1', 'edge-3'];
  await put('leaving', { desired_state: 'running', spec: worker, placement: { nodes } });
  await converged('leaving', 1, nodes);
  const dirs = nodes.map((n) => join(dir, n, 'streams', 'leaving'));
  expect(dirs.map((d) => existsSync(join(d, 'output.log')))).toEqual([true, true]);
  expect((await api().call('DELETE', '/api/v1/streams/leaving', { token: TOKENS.operator })).status).toBe(202);
  await eventually(async () => ((await api().call('GET', '/api/v1/streams/leaving')).status === 404 ? true : undefined), 30_000);
  // Each agent learns it at its next poll (every 5 s here), forgets it and reports without it.
  await eventually(async () => (dirs.every((d) => !existsSync(d)) ? true : undefined), 30_000);
  await eventually(async () => ((await t.db.selectFrom('observed_streams').select('node_id').where('stream_id', '=', 'leaving').execute()).length === 0 ? true : undefined), 30_000);
}, 60_000);

test('F2 labels survive a Hub restart', async () => {
  await api().call('PUT', '/api/v1/nodes/edge-1/labels', { token: TOKENS.operator, body: { labels: { tier: 'edge' } } });
  await hub.stop('SIGTERM');
  hub = await startHub();
  expect((await api().call('GET', '/api/v1/nodes/edge-1')).body.labels).toEqual({ tier: 'edge' });
}, 40_000);

test('an agent cannot report for another node', async () => {
  const r = await api().call('POST', '/api/v1/agent/reports', {
    token: agentToken('edge-1'),
    body: { node_id: 'edge-2', boot_id: 'x', report_seq: 1, streams: [] },
  });
  expect([r.status, r.body.code]).toEqual([403, 'node_mismatch']);
});

async function stopWorkloads(): Promise<void> {
  for (const n of [1, 2, 3]) {
    const streamsDir = join(dir, `edge-${n}`, 'streams');
    for (const id of ['split', 'offline', 'drained']) {
      try {
        const { pid } = JSON.parse(await readFile(join(streamsDir, id, 'state.json'), 'utf8')) as { pid?: number };
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // not on this node, or already gone
      }
    }
  }
}
