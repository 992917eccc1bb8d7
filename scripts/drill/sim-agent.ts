import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type * as AgentModule from '../../packages/agent/src/agent.ts';
import type * as LogModule from '../../packages/agent/src/log.ts';
import type * as SimModule from '../../packages/agent/src/executors/sim.ts';

/**
 * One agent of a given release (its checkout's packages/agent) with the simulated executor, as a process of its
 * own: the drill's nodes. The agent's command line offers no faults, so this runs the release's Agent itself and
 * arms a temporary failure for one stream (`--fail-stream`), which keeps that stream's intent retrying.
 * The token comes in FLEETPLANE_AGENT_TOKEN, as the agent's own command line takes it.
 */
const { values } = parseArgs({
  options: {
    release: { type: 'string' },
    hub: { type: 'string' },
    'node-id': { type: 'string' },
    'state-dir': { type: 'string' },
    'fail-stream': { type: 'string' },
  },
});
const release = values.release!;
const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(release, 'packages/agent/src', path)).href) as Promise<T>;
const { Agent } = await load<typeof AgentModule>('agent.ts');
const { createSimExecutor } = await load<typeof SimModule>('executors/sim.ts');
const { jsonLog } = await load<typeof LogModule>('log.ts');

const faults = values['fail-stream'] ? [{ kind: 'temporary' as const, times: Infinity, stream_id: values['fail-stream'] }] : [];
const executor = createSimExecutor({ latencyMs: 50, faults });
const agent = new Agent({
  hub: values.hub!,
  nodeId: values['node-id']!,
  token: process.env.FLEETPLANE_AGENT_TOKEN!,
  stateDir: values['state-dir']!,
  executor,
  reportEveryMs: 1000,
  pollSeconds: 2,
  hubTimeoutMs: 5000,
  log: jsonLog(),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void agent.stop().then(() => executor.close()).then(() => process.exit(0)));
}
void agent.refused.then(() => process.exit(4));
await agent.start();
