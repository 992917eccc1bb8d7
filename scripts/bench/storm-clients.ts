/**
 * The clients of `npm run bench -- storm`, on worker threads of their own (one for the fleet's agents, one for
 * the operators), so their JSON and HTTP work runs beside the Hub's event loop, not on it. The main thread
 * sends one operation at a time to each and gets its result back.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { hubRequest, keptAlive, type Answer } from './http-request.ts';
import { ReportConnection } from './report-connection.ts';

export interface ClientsData {
  fleetplaneStormClients: true;
  /** The Hub's port on 127.0.0.1. */
  port: number;
  tag: string;
  nodes: number;
  streamsPerNode: number;
  operatorToken: string;
}

export type ClientsRequest =
  /** Every node of [from, from + count) sends its next report at once, each on a new connection, as a fleet reconnecting does. */
  | { op: 'burst'; from: number; count: number; giveUpMs: number }
  /** Reports at a fixed rate over the whole fleet, whatever the answers' pace (report k is due at k / rate s). */
  | { op: 'steady'; rate: number; ms: number }
  /** `clients` operators, each sending `paths` in turn, one request at a time, for `ms`. */
  | { op: 'operators'; clients: number; paths: string[]; ms: number };

/** How a load's answers went. */
export interface Tally {
  /** 2xx. */
  ok: number;
  /** 429, and 503 with a Retry-After but no database_unavailable: the Hub turned the request away. */
  refused: number;
  /** Any other 5xx. */
  failed: number;
  /** Any other answer. */
  other: number;
  /** No answer (the connection failed). */
  errors: number;
  first: string | null;
}

export interface BurstResult extends Tally {
  /** Burst start → each node's report accepted, ms (after its retries, if refused). */
  accepted: Float64Array;
  /** Burst start → each first answer, whatever it was, ms. */
  firstAnswers: Float64Array;
  /** Reports sent again after a refusal or a failure. */
  retries: number;
  /** Nodes whose report was never accepted within giveUpMs. */
  gaveUp: number;
}

export interface SteadyResult extends Tally {
  /** Due → answered 2xx, ms. */
  latencies: Float64Array;
  sent: number;
}

export interface OperatorsResult {
  /** Per path: request → 2xx, ms, and how its answers went. */
  paths: Record<string, { latencies: number[]; tally: Tally }>;
}

export const stormNodeId = (i: number) => `edge-${i + 1}`;
export const stormToken = (tag: string, node: string) => `bench-${tag}-${node}-agent`;
export const STORM_BOOT_ID = 'bench-boot-1';
/** A steady load's connections at most. */
const STEADY_CONNECTIONS = 512;

/** A full report of node i: its streams, all running at generation 1. */
export function stormReport(i: number, seq: number, streamsPerNode: number) {
  return {
    node_id: stormNodeId(i),
    boot_id: STORM_BOOT_ID,
    report_seq: seq,
    streams: Array.from({ length: streamsPerNode }, (_, k) => ({ stream_id: `${stormNodeId(i)}-s${k + 1}`, generation: 1, state: 'running', last_action_id: null, error: null })),
  };
}

const newTally = (): Tally => ({ ok: 0, refused: 0, failed: 0, other: 0, errors: 0, first: null });

/** Whether the Hub turned the request away for its load (to be retried later), not for a fault. */
export const refusedForLoad = (a: Answer) => a.status === 429 || (a.status === 503 && a.body?.code !== 'database_unavailable' && a.body?.code !== 'internal');

function count(t: Tally, a: Answer | Error, what: string): void {
  if (a instanceof Error) {
    t.errors++;
    t.first ??= `${what}: ${a.message}`;
  } else if (a.status >= 200 && a.status < 300) t.ok++;
  else if (refusedForLoad(a)) t.refused++;
  else {
    if (a.status >= 500) t.failed++;
    else t.other++;
    t.first ??= `${what}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`;
  }
}

const retryAfterSeconds = (a: Answer): number | null => a.retryAfter ?? null;

if (!isMainThread && (workerData as ClientsData | undefined)?.fleetplaneStormClients) clients(workerData as ClientsData, parentPort!);

function clients(data: ClientsData, port: NonNullable<typeof parentPort>): void {
  const tokens = Array.from({ length: data.nodes }, (_, i) => stormToken(data.tag, stormNodeId(i)));
  // The set-up sent each node's first report (report_seq 1).
  const seq = new Float64Array(data.nodes).fill(1);
  const next = (i: number) => stormReport(i, ++seq[i]!, data.streamsPerNode);
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /**
   * Each node reports at once on a connection of its own. A report turned away is sent again as the reference
   * agent would: after the Retry-After asked for (else 1 s), with up to as much again of jitter.
   */
  async function burst(from: number, n: number, giveUpMs: number): Promise<BurstResult> {
    const tally = newTally();
    const accepted: number[] = [];
    const firstAnswers: number[] = [];
    let retries = 0;
    let gaveUp = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: n }, async (_, k) => {
        const i = from + k;
        const connection = new ReportConnection(data.port);
        try {
          for (let attempt = 0; ; attempt++) {
            let answer: Answer | Error;
            try {
              answer = await connection.post('/api/v1/agent/reports', tokens[i]!, next(i));
            } catch (e) {
              answer = e as Error;
            }
            const at = performance.now() - start;
            if (attempt === 0) firstAnswers.push(at);
            count(tally, answer, `report ${stormNodeId(i)}`);
            if (!(answer instanceof Error) && answer.status >= 200 && answer.status < 300) {
              accepted.push(at);
              return;
            }
            if (at > giveUpMs) {
              gaveUp++;
              return;
            }
            const wait = (answer instanceof Error ? null : retryAfterSeconds(answer)) ?? 1;
            retries++;
            await pause(wait * 1000 * (1 + Math.random()));
          }
        } finally {
          connection.close();
        }
      }),
    );
    return { ...tally, accepted: Float64Array.from(accepted), firstAnswers: Float64Array.from(firstAnswers), retries, gaveUp };
  }

  async function steady(rate: number, ms: number): Promise<SteadyResult> {
    const tally = newTally();
    const latencies: number[] = [];
    const idle: ReportConnection[] = [];
    let opened = 0;
    const waiting: Array<(c: ReportConnection) => void> = [];
    const take = (): ReportConnection | Promise<ReportConnection> =>
      idle.pop() ?? (opened < STEADY_CONNECTIONS ? (opened++, new ReportConnection(data.port)) : new Promise((r) => waiting.push(r)));
    const release = (c: ReportConnection) => {
      const w = waiting.shift();
      if (w) w(c);
      else idle.push(c);
    };
    const start = performance.now();
    const total = Math.floor((rate * ms) / 1000);
    const inFlight: Promise<void>[] = [];
    for (let k = 0; k < total; k++) {
      const due = start + (k * 1000) / rate;
      const now = performance.now();
      if (due > now) await pause(due - now);
      const i = k % data.nodes;
      inFlight.push(
        (async () => {
          const c = await take();
          let answer: Answer | Error;
          try {
            answer = await c.post('/api/v1/agent/reports', tokens[i]!, next(i));
          } catch (e) {
            answer = e as Error;
          }
          count(tally, answer, `report ${stormNodeId(i)}`);
          if (!(answer instanceof Error) && answer.status >= 200 && answer.status < 300) latencies.push(performance.now() - due);
          release(c);
        })(),
      );
    }
    await Promise.all(inFlight);
    for (const c of idle) c.close();
    return { ...tally, latencies: Float64Array.from(latencies), sent: total };
  }

  async function operators(n: number, paths: string[], ms: number): Promise<OperatorsResult> {
    const keepAlive = keptAlive();
    const result: OperatorsResult = { paths: Object.fromEntries(paths.map((p) => [p, { latencies: [], tally: newTally() }])) };
    const deadline = performance.now() + ms;
    await Promise.all(
      Array.from({ length: n }, async (_, c) => {
        for (let k = c; performance.now() < deadline; k++) {
          const path = paths[k % paths.length]!;
          const t = performance.now();
          let answer: Answer | Error;
          try {
            answer = await hubRequest(keepAlive, data.port, 'GET', path, data.operatorToken);
          } catch (e) {
            answer = e as Error;
          }
          const into = result.paths[path]!;
          count(into.tally, answer, `GET ${path}`);
          if (!(answer instanceof Error) && answer.status >= 200 && answer.status < 300) into.latencies.push(performance.now() - t);
          // A refused operator waits as asked, as a well-behaved script does.
          else if (!(answer instanceof Error) && refusedForLoad(answer)) await pause((retryAfterSeconds(answer) ?? 1) * 1000);
        }
      }),
    );
    keepAlive.destroy();
    return result;
  }

  port.on('message', async (m: ClientsRequest) => {
    try {
      const value = m.op === 'burst' ? await burst(m.from, m.count, m.giveUpMs) : m.op === 'steady' ? await steady(m.rate, m.ms) : await operators(m.clients, m.paths, m.ms);
      port.postMessage({ ok: true, value });
    } catch (e) {
      port.postMessage({ ok: false, error: String((e as Error).stack ?? e) });
    }
  });
}
