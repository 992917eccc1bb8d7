import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, caller, testConfig, TOKENS } from './support/hub.ts';
import { freePort } from './support/ports.ts';
import { startAgentProcess, startConfiguredHub, type AgentProcess, type HubProcess } from './support/process.ts';

// SPEC C6 with a real agent: the Hub is killed with SIGKILL while the agent executes a restart (the sim
// executor takes 2 s, so that the kill comes first even on a loaded machine: with 1 s the result was once in
// before it), and it restarts only once the agent failed to post the result: the result is lost, not late.
// After the Hub restarts, the attempt is ambiguous, the agent's next report resolves it, and the restart is
// executed once.
let t: TestDatabase;
let dir: string;
let hub: HubProcess;
let agent: AgentProcess;
let port: number;

const startHub = (): Promise<HubProcess> => startConfiguredHub({ databaseUrl: t.url, dir, config: testConfig(1, { lease_ms: 1500 }).file, port });

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-agent-crash-'));
  port = await freePort();
  hub = await startHub();
  agent = await startAgentProcess({
    hub: `http://127.0.0.1:${port}`,
    'node-id': 'edge-1',
    token: agentToken('edge-1'),
    'state-dir': join(dir, 'edge-1'),
    executor: 'sim',
    'sim-latency-ms': '2000',
    'report-every-ms': '300',
    'poll-seconds': '2',
  });
}, 60_000);

afterAll(async () => {
  await agent.stop('SIGKILL');
  await hub.stop('SIGKILL');
  await rm(dir, { recursive: true, force: true });
  await t.drop();
});

test('C6 kill -9 of the Hub between dispatch and result: ambiguous, resolved by the agent\'s next report, restart executed once', async () => {
  let api = caller(hub.url);
  await api.call('PUT', '/api/v1/streams/svc', { token: TOKENS.operator, body: { desired_state: 'running', placement: { nodes: ['edge-1'] } } });
  const running = () =>
    eventually(async () => {
      const s = (await api.call('GET', '/api/v1/streams/svc')).body;
      return s.intents?.some((i: { generation: number; state: string }) => i.generation === s.generation && i.state === 'converged') ? s : undefined;
    }, 30_000);
  await running();
  await api.call('POST', '/api/v1/streams/svc/actions', { token: TOKENS.operator, body: { action: 'restart' } });
  // Kill the Hub as soon as the restart has been dispatched: the agent is still executing it.
  const attempt = await eventually(async () => {
    const items = (await api.call('GET', '/api/v1/intents?stream_id=svc')).body.items as Array<{ intent_id: string; generation: number }>;
    const intent = items.find((i) => i.generation === 2);
    if (!intent) return undefined;
    const detail = (await api.call('GET', `/api/v1/intents/${intent.intent_id}`)).body;
    return detail.attempts.find((a: { state: string }) => a.state === 'dispatched');
  }, 30_000);
  expect(attempt.operation).toBe('job_restart');
  expect(await hub.stop('SIGKILL')).toBeNull();
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(attempt.lease_expires_at) - Date.now()) + 100));
  // A Hub back before the agent's answer would take it as a late result (recorded, moving nothing).
  const lost = () => agent.output().split('\n').some((line) => line.includes('"result not delivered"') && line.includes(attempt.attempt_id));
  await eventually(async () => (lost() ? true : undefined), 30_000);
  hub = await startHub();
  api = caller(hub.url);
  const resolved = await eventually(async () => {
    const i = (await api.call('GET', `/api/v1/intents/${attempt.intent_id}`)).body;
    return i.state === 'converged' ? i : undefined;
  }, 30_000);
  // One attempt, never sent again; the agent's journal shows it ran once.
  expect(resolved.attempts.map((a: { attempt_id: string; state: string }) => [a.attempt_id, a.state])).toEqual([[attempt.attempt_id, 'ambiguous']]);
  const journal = (await readFile(join(dir, 'edge-1', 'attempts.jsonl'), 'utf8')).split('\n').filter((l) => l.includes(attempt.attempt_id));
  expect(journal.filter((l) => !l.includes('"result"'))).toHaveLength(1);
}, 90_000);
