import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Report } from '@fleetplane/core';
import type { Actor } from '../../../packages/hub/src/commands/pipeline.ts';
import { registerNode } from '../../../packages/hub/src/nodes/register-node.ts';
import { ConfigFile, hashToken, type HubConfig } from '../../../packages/hub/src/config.ts';
import { Registration } from '../../../packages/hub/src/http/routes/agent.ts';
import type { Hub } from '../../../packages/hub/src/hub.ts';
import { ingestReport } from '../../../packages/hub/src/reconcile/ingest-report.ts';
import { RECONCILE_QUEUE } from '../../../packages/hub/src/reconcile/queues.ts';
import { stop } from '../interruptible.ts';
import * as fmt from './format.ts';
import { until } from './until.ts';

/**
 * A simulated fleet's set-up on an in-process Hub: its credentials, and its nodes registered and first
 * reported through the Hub's pipeline, running the commands the agent routes run (the HTTP side is what
 * the benchmarks measure later; 10,000 nodes over HTTP would take a run past its time).
 */

/** Commands in flight during a set-up. */
export const SETUP_CONCURRENCY = 256;

/** A run's tag, which sets its credentials apart from an earlier run's on the same database, and its operator's token. */
export function runCredentials(): { tag: string; operatorToken: string } {
  const tag = randomBytes(4).toString('hex');
  return { tag, operatorToken: `bench-${tag}-operator` };
}

/**
 * A Hub config with one operator credential and one agent credential per node (`tokens`: node → token),
 * and `file`'s other settings of the configuration file (its control_api keys besides the credentials).
 */
export function fleetConfig(
  operatorToken: string,
  tokens: ReadonlyArray<[node: string, token: string]>,
  file: { control_api?: Record<string, unknown>; [section: string]: unknown } = {},
): HubConfig {
  const parsed = ConfigFile.parse({
    ...file,
    control_api: {
      ...file.control_api,
      credentials: [
        { id: 'bench-operator', role: 'operator', token_sha256: hashToken(operatorToken) },
        ...tokens.map(([node, token]) => ({ id: `${node}-agent`, role: 'agent', node_id: node, token_sha256: hashToken(token) })),
      ],
    },
  });
  return { port: 0, bind: null, tls: null, dataDir: '/nonexistent', databaseUrl: null, embeddedPort: 0, file: parsed, generatedAdminToken: null, adminTokenFile: null };
}

/** Runs `f(i)` for each i in [from, to), started in order, `concurrency` at once, until done or Ctrl-C. */
export async function inParallel(from: number, to: number, concurrency: number, f: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < to && !stop.requested) await f(next++);
    }),
  );
}

const agent = (node: string): Actor => ({ principal: `${node}-agent`, role: 'agent', source: 'agent', correlationId: randomUUID() });

/** Registers `node` as its agent's registration would. */
export async function register(hub: Hub, node: string, bootId: string): Promise<void> {
  const outcome = await hub.context.pipeline.run(agent(node), registerNode(Registration.parse({ node_id: node, boot_id: bootId, agent_version: 'bench' })));
  if (!outcome.ok) throw new Error(`registering ${node}: ${outcome.error.code}: ${outcome.error.message}`);
}

/** Ingests `node`'s first full report as its agent's report would; it must be accepted. */
export async function firstReport(hub: Hub, node: string, body: unknown): Promise<void> {
  const outcome = await hub.context.pipeline.run(agent(node), ingestReport(Report.parse(body)));
  if (!outcome.ok || !outcome.value.result.accepted) throw new Error(`first report of ${node}: ${JSON.stringify(outcome)}`);
}

/** Reconcile jobs waiting or running (a registration queues one per node). */
export async function reconcileJobsQueued(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')`, [
    RECONCILE_QUEUE,
  ]);
  return Number(rows[0]!.n);
}

/**
 * Registers `nodes` and sends each one's first report (`report(node)`), in-process through the Hub's pipeline
 * as the agent routes would: a steady fleet before the load. Registration queues a reconcile job per node;
 * the Hub's worker runs them before the load begins, so none is ahead of its jobs. Answers what it took.
 */
export async function setUpFleet(hub: Hub, pool: pg.Pool, nodes: readonly string[], bootId: string, report: (node: string) => unknown): Promise<string> {
  let t = performance.now();
  await inParallel(0, nodes.length, SETUP_CONCURRENCY, (i) => register(hub, nodes[i]!, bootId));
  const registered = (performance.now() - t) / 1000;
  t = performance.now();
  await inParallel(0, nodes.length, SETUP_CONCURRENCY, (i) => firstReport(hub, nodes[i]!, report(nodes[i]!)));
  const reported = (performance.now() - t) / 1000;
  t = performance.now();
  let left = await reconcileJobsQueued(pool);
  if (!(await until(async () => (left = await reconcileJobsQueued(pool)) === 0, 180_000))) throw new Error(`${left} reconcile jobs still queued after 3 minutes`);
  return (
    `${fmt.count(nodes.length)} nodes registered in ${registered.toFixed(1)} s, first reports in ${reported.toFixed(1)} s ` +
    `(in-process, ${SETUP_CONCURRENCY} commands in flight); registration's reconcile jobs done ${((performance.now() - t) / 1000).toFixed(1)} s later`
  );
}
