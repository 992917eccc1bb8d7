import type { BenchDatabase } from './database.ts';
import { describeAnswer, hubRequest, keptAlive } from './http-request.ts';
import { startHub } from '../../packages/hub/src/hub.ts';
import { createLogger } from '../../packages/hub/src/logger.ts';
import { firstReport, fleetConfig, register, runCredentials } from './tools/fleet.ts';

export interface DesiredWrites {
  /** One PUT /api/v1/streams/{id} by `client`, on a stream of its own placed on a node of its own. */
  write(client: number): Promise<void>;
  /** The same write with `Prefer: return=minimal`: answered at its commit, its node passed by its job. */
  writeMinimal(client: number): Promise<void>;
  /** Stops the Hub. */
  close(): Promise<void>;
}

/**
 * Desired writes as an operator makes them, through a Hub started in this process on the benchmark's
 * database: each over HTTP with a bearer token (authentication, validation, Idempotency-Key-free), one
 * new generation of the client's stream, which the Hub loads, decides, appends, projects and reconciles on
 * its node (an intent, an attempt, a job) before it answers with the stream's view. Each client's stream
 * is placed on a registered node of its own; every write changes the spec, so every write is a generation.
 * The HTTP client shares the Hub's thread: its own cost counts against the Hub's rate.
 */
export async function desiredWrites(database: BenchDatabase, clients: number): Promise<DesiredWrites> {
  const { tag, operatorToken } = runCredentials();
  const node = (client: number) => `bench-rest-${tag}-node-${client}`;
  const nodes = Array.from({ length: clients }, (_, c) => node(c));
  const hub = await startHub({
    config: fleetConfig(operatorToken, nodes.map((n) => [n, `bench-${tag}-${n}`])),
    databaseUrl: database.url,
    port: 0,
    logger: createLogger('error', true),
  });
  for (const n of nodes) {
    await register(hub, n, `${n}-boot`);
    await firstReport(hub, n, { node_id: n, boot_id: `${n}-boot`, report_seq: 1, streams: [] });
  }
  const port = Number(new URL(hub.url).port);
  const sockets = keptAlive();
  const generations = new Array<number>(clients).fill(0);
  const put = async (client: number, headers: Record<string, string>, expected: number) => {
    const body = { desired_state: 'running', spec: { command: 'sleep', args: [String(++generations[client]!)] }, placement: { nodes: [node(client)] } };
    const answer = await hubRequest(sockets, port, 'PUT', `/api/v1/streams/bench-rest-${tag}-${client}`, operatorToken, body, undefined, headers);
    if (answer.status !== expected) throw new Error(`desired write answered ${describeAnswer(answer)}`);
  };
  return {
    write: (client) => put(client, {}, 200),
    writeMinimal: (client) => put(client, { prefer: 'return=minimal' }, 204),
    async close() {
      sockets.destroy();
      await hub.stop();
    },
  };
}
