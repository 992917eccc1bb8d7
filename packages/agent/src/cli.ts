#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { Agent } from './agent.ts';
import type { Executor } from './executors/executor.ts';
import { createProcessExecutor } from './executors/process.ts';
import { createSimExecutor } from './executors/sim.ts';

const USAGE = `usage: fleetplane-agent --hub URL --node-id ID --token T --state-dir DIR [options]
  --executor process|sim     what runs the streams (default process)
  --capabilities a,b         advertised capabilities, e.g. network_shuffle
  --data-address HOST:PORT   data-plane address (split placements need one)
  --report-every-ms N        full report period (default 10000)
  --poll-seconds N           long poll length (default 25)
  --sim-latency-ms N         with --executor sim: how long each attempt takes
The token may also come from FLEETPLANE_AGENT_TOKEN.`;

const { values } = parseArgs({
  options: {
    hub: { type: 'string' },
    'node-id': { type: 'string' },
    token: { type: 'string' },
    'state-dir': { type: 'string' },
    executor: { type: 'string', default: 'process' },
    capabilities: { type: 'string', default: '' },
    'data-address': { type: 'string' },
    'report-every-ms': { type: 'string', default: '10000' },
    'poll-seconds': { type: 'string', default: '25' },
    'sim-latency-ms': { type: 'string', default: '0' },
    help: { type: 'boolean' },
  },
});

const token = values.token ?? process.env.FLEETPLANE_AGENT_TOKEN;
if (values.help || !values.hub || !values['node-id'] || !token || !values['state-dir']) {
  process.stderr.write(USAGE + '\n');
  process.exit(values.help ? 0 : 2);
}

const log = (message: string, fields: Record<string, unknown> = {}) =>
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), message, ...fields }) + '\n');

const executor: Executor =
  values.executor === 'sim'
    ? createSimExecutor({ latencyMs: Number(values['sim-latency-ms']) })
    : createProcessExecutor({ stateDir: values['state-dir'] });
const agent = new Agent({
  hub: values.hub,
  nodeId: values['node-id'],
  token,
  stateDir: values['state-dir'],
  executor,
  capabilities: values.capabilities ? values.capabilities.split(',').filter(Boolean) : [],
  dataAddress: values['data-address'] ?? null,
  reportEveryMs: Number(values['report-every-ms']),
  pollSeconds: Number(values['poll-seconds']),
  log,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // Streams keep running: stopping the agent is not stopping the workload.
    void agent.stop().then(() => executor.close()).then(() => process.exit(0));
  });
}

await agent.start();
log('agent started', { node_id: values['node-id'], boot_id: agent.bootId, hub: values.hub });
