import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Agent, type AgentOptions } from '../packages/agent/src/agent.ts';
import { createSimExecutor } from '../packages/agent/src/executors/sim.ts';
import type { Level } from '../packages/agent/src/log.ts';
import { createTestDatabase } from './support/database.ts';
import { eventually } from './support/fleet.ts';
import { agentToken, startTestHub, testConfig, TOKENS } from './support/hub.ts';
import { hubSuite } from './support/hub-suite.ts';
import { startAgentProcess } from './support/process.ts';

// The reference agent against a real Hub: what it does with each answer of agent-protocol.md, "Errors and retries".
const suite = hubSuite();
let dir: string;
const agents: Agent[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleetplane-agent-answers-'));
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  suite.hub.reload(testConfig().file);
  await rm(dir, { recursive: true, force: true });
});

type Line = { level: Level; message: string; fields: Record<string, unknown> };

/** An agent with the sim executor on the test Hub, reporting every 200 ms; its log lines kept in `lines`. */
function agentOf(options: Partial<AgentOptions> & { nodeId: string; token: string }): { agent: Agent; lines: Line[] } {
  const lines: Line[] = [];
  const agent = new Agent({
    hub: suite.hub.url,
    stateDir: join(dir, options.nodeId, String(agents.length)),
    executor: createSimExecutor(),
    pollSeconds: 1,
    reportEveryMs: 200,
    log: (level, message, fields = {}) => lines.push({ level, message, fields }),
    ...options,
  });
  agents.push(agent);
  return { agent, lines };
}

const denials = async (principal: string) =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM events WHERE stream_id = ${'principal:' + principal} AND type = 'AccessDenied'`.execute(suite.t.db))
      .rows[0]!.n,
  );

const node = async (nodeId: string) => (await suite.hub.call('GET', `/api/v1/nodes/${nodeId}`)).body;
const takenOver = (lines: Line[]) => lines.filter((l) => l.level === 'warn' && /^report refused: another boot of this node registered since/.test(l.message));

test('D2 a running agent whose boot another registration replaced registers again at its next report, with a warn line, and goes on reporting', async () => {
  const { agent, lines } = agentOf({ nodeId: 'edge-1', token: TOKENS.agent1 });
  await agent.start();
  // Another agent with the same node id starts, registers, and is gone (`timeout 5 fleetplane-agent …`).
  expect((await suite.hub.call('POST', '/api/v1/agent/register', { token: TOKENS.agent1, body: { node_id: 'edge-1', boot_id: 'another-boot' } })).status).toBe(200);
  const takenAt = Date.now();
  // Registered again, and reporting: only a report of the registered boot moves the node's last report.
  const back = await eventually(async () => {
    const n = await node('edge-1');
    return n.boot_id === agent.bootId && n.last_report_at !== null && Date.parse(n.last_report_at) > takenAt ? n : undefined;
  });
  expect(back.liveness).toBe('online');
  expect(takenOver(lines)).toEqual([expect.objectContaining({ fields: expect.objectContaining({ boot_id: agent.bootId }) })]);
  await eventually(async () => ((await node('edge-1')).last_report_seq > back.last_report_seq ? true : undefined));
  expect(takenOver(lines)).toHaveLength(1);
});

test('D2 an agent whose Hub no longer holds its node (409 node_not_registered: a database restored from before it joined) registers again', async () => {
  const [before, restored] = [await createTestDatabase(), await createTestDatabase()];
  let hub = await startTestHub(before.url);
  try {
    const { agent, lines } = agentOf({ nodeId: 'edge-1', token: TOKENS.agent1, hub: hub.url });
    await agent.start();
    // The same address now serves a database that never saw the node.
    await hub.stop();
    hub = await startTestHub(restored.url, { port: Number(new URL(hub.url).port) });
    const back = await eventually(async () => {
      const n = (await hub.call('GET', '/api/v1/nodes/edge-1')).body;
      return n.boot_id === agent.bootId && n.last_report_at !== null ? n : undefined;
    });
    expect(back.liveness).toBe('online');
    const again = lines.filter((l) => l.level === 'warn' && /^report refused: the Hub has no registration of this node/.test(l.message));
    expect(again).toEqual([expect.objectContaining({ fields: expect.objectContaining({ boot_id: agent.bootId }) })]);
  } finally {
    for (const a of agents.splice(0)) await a.stop();
    await hub.stop();
    await before.drop();
    await restored.drop();
  }
});

test('D2 two agents with one node id take it from each other, and each says so at every takeover', async () => {
  const a = agentOf({ nodeId: 'edge-1', token: TOKENS.agent1 });
  const b = agentOf({ nodeId: 'edge-1', token: TOKENS.agent1 });
  await a.agent.start();
  await b.agent.start();
  await eventually(async () => (takenOver(a.lines).length >= 2 && takenOver(b.lines).length >= 2 ? true : undefined));
  expect((await node('edge-1')).liveness).toBe('online');
});

test.each([
  ['forbidden', 'an admin token', TOKENS.admin, 'alice', /not an agent credential/],
  ['node_mismatch', "another node's token", TOKENS.agent2, 'edge-2-agent', /bound to another node/],
])('agent: a refusal retrying cannot change (%s: %s) stops the agent at the first one, with one error line', async (code, _what, token, principal, line) => {
  const before = await denials(principal);
  const { agent, lines } = agentOf({ nodeId: 'edge-1', token });
  expect(await agent.start()).toBe(false);
  expect((await agent.refused).code).toBe(code);
  await new Promise((r) => setTimeout(r, 1500)); // longer than the registration's first retries
  expect(await denials(principal)).toBe(before + 1);
  expect(lines).toEqual([{ level: 'error', message: expect.stringMatching(line), fields: expect.objectContaining({ code, status: 403 }) }]);
});

test('agent: a token the Hub does not know (401) is retried during the grace after the start, then stops the agent', async () => {
  // edge-3's credential is not in the Hub's file yet: a Hub reloaded within the grace admits the agent.
  const { agent, lines } = agentOf({ nodeId: 'edge-3', token: agentToken('edge-3'), unknownTokenGraceMs: 3000 });
  const started = agent.start();
  await eventually(async () => (lines.filter((l) => l.message === 'register failed, retrying' && l.fields.code === 'unauthenticated').length >= 2 ? true : undefined));
  suite.hub.reload(testConfig(3).file);
  expect(await started).toBe(true);
  // Revoked once the grace is over: the next report or poll refused stops the agent.
  await new Promise((r) => setTimeout(r, 3000));
  suite.hub.reload(testConfig(2).file);
  expect((await agent.refused).code).toBe('unauthenticated');
  expect(lines.filter((l) => l.level === 'error')).toEqual([{ level: 'error', message: expect.stringMatching(/does not know this agent's token/), fields: expect.objectContaining({ status: 401 }) }]);
  const seen = lines.length;
  await new Promise((r) => setTimeout(r, 1500));
  expect(lines.length).toBe(seen); // nothing more: no report, no poll
});

test('agent: the agent process exits 4 when the Hub refuses its token for good, and logs why', async () => {
  const started = startAgentProcess({ hub: suite.hub.url, 'node-id': 'edge-1', token: TOKENS.agent2, 'state-dir': join(dir, 'process'), executor: 'sim' });
  await expect(started).rejects.toThrow(/exited with 4 before it was ready:\n.*"level":"error".*bound to another node/);
});
