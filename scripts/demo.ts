import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigFile, hashToken, newToken, type HubConfig } from '../packages/hub/src/config.ts';
import { embeddedHubUrl } from '../packages/hub/src/database/hub-login.ts';
import { openServer } from '../packages/hub/src/database/open.ts';
import { startHub } from '../packages/hub/src/hub.ts';
import { createLogger } from '../packages/hub/src/logger.ts';

/**
 * `npm run demo`: a Hub on the embedded PostgreSQL and three agents (separate processes, `process`
 * executor) that run a tiny real workload split across them. Ctrl-C stops the workload, then everything.
 */
const dataDir = resolve(process.env.FLEETPLANE_DATA_DIR ?? '.fleetplane/demo');
const port = Number(process.env.FLEETPLANE_PORT ?? 8080);
const nodes = ['demo-1', 'demo-2', 'demo-3'];
const adminToken = newToken();
const agentTokens = Object.fromEntries(nodes.map((n) => [n, newToken()]));
const say = (line = '') => process.stdout.write(line + '\n');

const file = ConfigFile.parse({
  control_api: {
    credentials: [
      { id: 'demo-admin', role: 'admin', token_sha256: hashToken(adminToken) },
      ...nodes.map((n) => ({ id: `${n}-agent`, role: 'agent', node_id: n, token_sha256: hashToken(agentTokens[n]!) })),
    ],
  },
  reconciliation: { mode: 'lifecycle' },
});
const config: HubConfig = {
  port,
  bind: null,
  tls: null,
  dataDir,
  databaseUrl: process.env.DATABASE_URL || null,
  embeddedPort: Number(process.env.FLEETPLANE_PG_PORT ?? 5489),
  file,
  generatedAdminToken: null,
  adminTokenFile: null,
};
const logger = createLogger('warn');
await mkdir(dataDir, { recursive: true });
const server = await openServer(config, logger);
// As `npm start` does: on its own server the Hub migrates as the owner and runs as fleetplane_app.
const databaseUrl = config.databaseUrl ?? (await embeddedHubUrl(server.url, config.dataDir)).url;
const hub = await startHub({ config, databaseUrl, logger });
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(hub.url + path, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as any;
};

/** Set once Ctrl-C starts the demo's stop: agents exiting after it are expected. */
let stopping = false;

// Each agent runs in a process group of its own, like the embedded server: a terminal's Ctrl-C reaches only
// the demo, which stops the workload through the agents before it stops them. Its token comes in its
// environment, not on its command line, which any local user can list. Its log lines go to a file in its
// state directory, where an agent that stopped or never registered says why.
const agentLog = (n: string) => join(dataDir, n, 'agent.log');
const agents: ChildProcess[] = [];
for (const [i, n] of nodes.entries()) {
  await mkdir(join(dataDir, n), { recursive: true });
  const log = openSync(agentLog(n), 'a');
  const agent = spawn(
    process.execPath,
    [
      join(import.meta.dirname, '../packages/agent/src/cli.ts'),
      ...['--hub', hub.url, '--node-id', n, '--state-dir', join(dataDir, n)],
      ...['--capabilities', 'network_shuffle', '--data-address', `127.0.0.1:${7101 + i}`, '--report-every-ms', '2000'],
    ],
    { stdio: ['ignore', log, log], detached: true, env: { ...process.env, FLEETPLANE_AGENT_TOKEN: agentTokens[n] } },
  );
  closeSync(log);
  agent.once('exit', (code, signal) => {
    if (!stopping) say(`  agent ${n} exited (${signal ?? `code ${code}`}): its log is ${agentLog(n)}`);
  });
  agents.push(agent);
}
// Should the demo end any other way, its agents go with it (SIGKILL alone leaves them running).
process.on('exit', () => agents.forEach((a) => a.kill('SIGTERM')));
const stopAgent = (agent: ChildProcess) =>
  new Promise<void>((exited) => {
    if (agent.exitCode !== null || agent.signalCode !== null) return exited();
    agent.once('exit', () => exited());
    agent.kill('SIGTERM');
  });

const workload = {
  desired_state: 'running',
  spec: { command: process.execPath, args: ['-e', "setInterval(() => console.log('tick', new Date().toISOString()), 1000)"] },
  placement: { nodes, split: true },
};
await api('PUT', '/api/v1/streams/ticker', workload);

say(`\nFleetplane demo: a Hub on ${hub.url} and three agents (${nodes.join(', ')}), data in ${dataDir}\n`);
say(`  export TOKEN=${adminToken}`);
say(`  curl -s -H "Authorization: Bearer $TOKEN" ${hub.url}/api/v1/streams/ticker`);
say(`  curl -s -H "Authorization: Bearer $TOKEN" ${hub.url}/api/v1/nodes`);
say(`  curl -s -X POST -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \\`);
say(`       -d '{"action":"restart"}' ${hub.url}/api/v1/streams/ticker/actions`);
say(`\n  each node's output: ${join(dataDir, 'demo-1', 'streams', 'ticker', 'output.log')} (and demo-2, demo-3)`);
say(`  each agent's log: ${agentLog('demo-1')} (and demo-2, demo-3)`);
say('\nWatching the fleet converge (Ctrl-C to stop):');

let last = '';
const watch = setInterval(async () => {
  const s = await api('GET', '/api/v1/streams/ticker').catch(() => null);
  if (!s?.observed) return;
  const line = `  generation ${s.generation}: ` + nodes.map((n) => `${n} ${s.observed[n] ? `${s.observed[n].state}@${s.observed[n].generation}` : 'waiting'}`).join(', ');
  if (line !== last) say((last = line));
}, 500);

const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(watch);
  say('\nstopping the workload, then the agents and the Hub…');
  await api('PUT', '/api/v1/streams/ticker', { ...workload, desired_state: 'stopped' }).catch(() => {});
  const deadline = Date.now() + 15_000;
  let workloadStopped = false;
  while (!workloadStopped && Date.now() < deadline) {
    const s = await api('GET', '/api/v1/streams/ticker').catch(() => null);
    workloadStopped = Boolean(s && nodes.every((n) => s.observed?.[n]?.state === 'stopped'));
    if (!workloadStopped) await new Promise((r) => setTimeout(r, 300));
  }
  if (!workloadStopped) say('  the workload did not report stopped within 15 s: some of its processes may still be running');
  await Promise.all(agents.map(stopAgent));
  await hub.stop();
  await server.close();
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop());
}
