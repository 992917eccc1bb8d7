/**
 * The simulated agents of `npm run bench -- reconcile`, on a worker thread of their own: their JSON and
 * HTTP work then runs beside the Hub's event loop, not on it (on a 2-core machine they still share the CPU
 * with the Hub and PostgreSQL; the benchmark prints how much each takes). The main thread sends one
 * operation at a time and gets its result back.
 */
import { describeAnswer, hubRequest, keptAlive } from './http-request.ts';
import { ReportConnection } from './report-connection.ts';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface AgentsData {
  fleetplaneAgents: true;
  /** The Hub's port on 127.0.0.1. */
  port: number;
  tag: string;
  clients: number;
  nodes: number;
  probes: number;
  streamsPerNode: number;
  operatorToken: string;
  /** Int32 per probe node: how many of its long polls the Hub holds right now (set by the main thread). */
  parked: SharedArrayBuffer;
}

export type AgentsRequest =
  /** `clients` concurrent report loops (default: AgentsData.clients). */
  | { op: 'load'; nodes: number; ms: number; probes: number; changeFraction: number; clients?: number }
  /** Reports at a fixed rate, whatever the answers' pace: report k of the load is due at k / rate s. */
  | { op: 'open'; nodes: number; ms: number; rate: number; changeFraction: number }
  | { op: 'probe'; samples: number }
  /** (d): the same report requests, to a bare HTTP route on `port` instead of the Hub. */
  | { op: 'baseline'; port: number; nodes: number; ms: number }
  | { op: 'stop' };

export interface ProbeSamples {
  /** PUT sent → the long poll answered with the attempt, ms. */
  delivery: number[];
  /** PUT sent → PUT answered, ms. */
  write: number[];
  /** Long polls that answered without the attempt and were sent again. */
  repolls: number;
  failures: string[];
}

export interface LoadResult {
  seconds: number;
  accepted: number;
  changed: number;
  stale: number;
  errors: number;
  firstError: string | null;
  /** Request → 202, ms, one per accepted report (an open load's: due time → 202). */
  latencies: Float64Array;
  probe: ProbeSamples;
  /** Connections an open load opened: the reports it had in flight at most. */
  connections?: number;
}

/** Atomics.waitAsync (ES2024; Node has it, the project's lib setting does not). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: boolean; value: Promise<string> | string };
}).waitAsync;

export const nodeId = (i: number) => `edge-${i + 1}`;
export const probeNodeId = (p: number) => `probe-${p + 1}`;
export const agentToken = (tag: string, node: string) => `bench-${tag}-${node}-agent`;
export const probeStream = (p: number) => `bench-probe-${p + 1}`;
export const BOOT_ID = 'bench-boot-1';
/** An open load's connections at most (see openLoad). */
export const OPEN_CONNECTIONS = 512;

/** A full report of node i: its streams at the given generations, all running. */
export function reportBody(i: number, seq: number, generations: ArrayLike<number>) {
  return {
    node_id: nodeId(i),
    boot_id: BOOT_ID,
    report_seq: seq,
    streams: Array.from(generations, (generation, k) => ({
      stream_id: `${nodeId(i)}-s${k + 1}`,
      generation,
      state: 'running',
      last_action_id: null,
      error: null,
    })),
  };
}

if (!isMainThread && (workerData as AgentsData | undefined)?.fleetplaneAgents) agents(workerData as AgentsData, parentPort!);

function agents(data: AgentsData, port: NonNullable<typeof parentPort>): void {
  const keepAlive = keptAlive();
  const parked = new Int32Array(data.parked);
  const tokens = Array.from({ length: data.nodes }, (_, i) => agentToken(data.tag, nodeId(i)));
  const probeTokens = Array.from({ length: data.probes }, (_, p) => agentToken(data.tag, probeNodeId(p)));
  // The set-up sent each node's first report (report_seq 1, every stream at generation 1).
  const seq = new Float64Array(data.nodes).fill(1);
  const generations = new Uint32Array(data.nodes * data.streamsPerNode).fill(1);
  let accepted = 0;

  const call = (method: string, path: string, token: string, body?: unknown) => hubRequest(keepAlive, data.port, method, path, token, body);

  /** The next full report of node i; with probability `changeFraction` one of its streams moved on. */
  function nextReport(i: number, changeFraction: number): { body: unknown; changed: boolean } {
    const changed = changeFraction > 0 && Math.random() < changeFraction;
    const at = i * data.streamsPerNode;
    if (changed) generations[at + Math.floor(Math.random() * data.streamsPerNode)]! += 1;
    seq[i]! += 1;
    return { changed, body: reportBody(i, seq[i]!, generations.subarray(at, at + data.streamsPerNode)) };
  }

  /** A load's reports, sent one at a time per connection and counted by their answer. */
  function reportTally(changeFraction: number) {
    const latencies: number[] = [];
    const counts = { accepted: 0, changed: 0, stale: 0, errors: 0, firstError: null as string | null };
    return {
      /** Sends node i's next report; its latency runs from `since` (the send, or the report's due time). */
      async send(connection: ReportConnection, i: number, since = performance.now()): Promise<void> {
        const report = nextReport(i, changeFraction);
        try {
          const r = await connection.post('/api/v1/agent/reports', tokens[i]!, report.body);
          if (r.status === 202) {
            latencies.push(performance.now() - since);
            counts.accepted++;
            if (report.changed) counts.changed++;
          } else if (r.status === 200) {
            counts.stale++;
          } else {
            counts.errors++;
            counts.firstError ??= `report ${nodeId(i)}: ${describeAnswer(r)}`;
          }
        } catch (e) {
          counts.errors++;
          counts.firstError ??= String(e);
        }
      },
      result(seconds: number, probe: ProbeSamples): LoadResult {
        return { seconds, ...counts, latencies: Float64Array.from(latencies), probe };
      },
    };
  }

  /**
   * `clients` loops, client c cycling over nodes c, c + clients, … (a node never has two reports in
   * flight, so its report_seq arrives in order), until `ms` have passed and every probe has finished.
   */
  async function load(
    nodes: number,
    ms: number,
    probes: number,
    changeFraction: number,
    hubPort = data.port,
    clients = data.clients,
  ): Promise<LoadResult> {
    const tally = reportTally(changeFraction);
    const start = performance.now();
    const deadline = start + ms;
    let probing = probes > 0;
    const probe: ProbeSamples = { delivery: [], write: [], repolls: 0, failures: [] };
    const probesDone = Promise.all(
      Array.from({ length: probes }, (_, p) => probeLoop(p, () => performance.now() < deadline, probe)),
    ).finally(() => {
      probing = false;
    });
    await Promise.all(
      Array.from({ length: Math.min(clients, nodes) }, async (_, c) => {
        const connection = new ReportConnection(hubPort);
        for (let i = c; performance.now() < deadline || probing; i = i + clients < nodes ? i + clients : c) {
          await tally.send(connection, i);
        }
        connection.close();
      }),
    );
    await probesDone;
    return tally.result((performance.now() - start) / 1000, probe);
  }

  /**
   * The fleet of the goal: reports at `rate` per second, node k % nodes sending report k, each on an idle
   * connection (a new one when none is idle, up to OPEN_CONNECTIONS), until `ms` have passed. A fleet's
   * agents do not wait for each other, so a slow answer does not slow the load; latency runs from the
   * report's due time, so a report sent late (its node's previous one still unanswered, every connection
   * busy, or this thread behind) counts its wait too. The cap keeps an overloaded Hub from also paying for
   * thousands of new connections, which a fleet's kept-alive agents would not open.
   */
  async function openLoad(nodes: number, ms: number, rate: number, changeFraction: number): Promise<LoadResult> {
    const tally = reportTally(changeFraction);
    const idle: ReportConnection[] = [];
    const open: ReportConnection[] = [];
    const waiting: Array<(c: ReportConnection) => void> = [];
    const take = (): ReportConnection | Promise<ReportConnection> =>
      idle.pop() ??
      (open.length < OPEN_CONNECTIONS ? open[open.push(new ReportConnection(data.port)) - 1]! : new Promise((r) => waiting.push(r)));
    const release = (c: ReportConnection) => {
      const next = waiting.shift();
      if (next) next(c);
      else idle.push(c);
    };
    const busy = new Map<number, Promise<void>>();
    const sends: Promise<void>[] = [];
    const start = performance.now();
    const total = Math.floor((ms / 1000) * rate);
    const send = async (k: number, due: number): Promise<void> => {
      const i = k % nodes;
      await busy.get(i);
      const connection = await take();
      await tally.send(connection, i, due);
      release(connection);
    };
    for (let k = 0; k < total; ) {
      const now = performance.now();
      for (; k < total && start + (k * 1000) / rate <= now; k++) {
        const sent = send(k, start + (k * 1000) / rate);
        busy.set(k % nodes, sent);
        sends.push(sent);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(sends);
    for (const c of open) c.close();
    const probe: ProbeSamples = { delivery: [], write: [], repolls: 0, failures: [] };
    return { ...tally.result((performance.now() - start) / 1000, probe), connections: open.length };
  }

  /** Resolves true once the Hub holds a long poll of probe node p, false after `ms`. */
  async function parkedOn(p: number, ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (Atomics.load(parked, p) === 0) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      const w = waitAsync(parked, p, 0, left);
      if (w.async) await w.value;
    }
    return true;
  }

  const probeGeneration = new Float64Array(data.probes);

  /**
   * One sample on probe node p: its long poll is held by the Hub, then a PUT places the probe's stream on
   * it; the time from sending the PUT to the poll answering with the new generation's attempt. The attempt
   * is then reported succeeded, as an agent would.
   */
  async function sample(p: number, into: ProbeSamples): Promise<void> {
    const node = probeNodeId(p);
    const token = probeTokens[p]!;
    const stream = probeStream(p);
    const want = probeGeneration[p]! + 1;
    const poll = () => call('GET', '/api/v1/agent/attempts?wait=25', token);
    const finish = async (attempts: Array<{ attempt_id: string; generation: number }>) => {
      for (const a of attempts) await call('POST', `/api/v1/agent/attempts/${a.attempt_id}/result`, token, { outcome: 'succeeded', generation: a.generation });
    };
    let polling = poll();
    // Wait for the Hub to hold the poll; a poll answering first carried leftovers: settle them, poll again.
    for (;;) {
      const first = await Promise.race([polling.then((r) => ({ r })), parkedOn(p, 30_000).then((held) => ({ held }))]);
      if ('held' in first) {
        if (!first.held) throw new Error(`the Hub did not hold a long poll of ${node} within 30 s`);
        break;
      }
      if (first.r.status !== 200) throw new Error(`poll ${node}: ${describeAnswer(first.r)}`);
      await finish(first.r.body.attempts);
      polling = poll();
    }
    const t0 = performance.now();
    const writing = call('PUT', `/api/v1/streams/${stream}`, data.operatorToken, {
      desired_state: 'running',
      spec: { command: 'sleep', args: [String(want)] },
      placement: { nodes: [node] },
    }).then((r) => ({ r, at: performance.now() }));
    let delivered: number | null = null;
    for (;;) {
      const r = await polling;
      const at = performance.now();
      if (r.status !== 200) throw new Error(`poll ${node}: ${describeAnswer(r)}`);
      const attempts = r.body.attempts as Array<{ attempt_id: string; stream_id: string; generation: number }>;
      await finish(attempts);
      if (attempts.some((a) => a.stream_id === stream && a.generation >= want)) {
        delivered = at - t0;
        break;
      }
      into.repolls++;
      polling = poll();
    }
    const written = await writing;
    if (written.r.status !== 200) throw new Error(`PUT ${stream}: ${describeAnswer(written.r)}`);
    probeGeneration[p] = written.r.body.generation;
    into.delivery.push(delivered);
    into.write.push(written.at - t0);
  }

  async function probeLoop(p: number, more: () => boolean, into: ProbeSamples): Promise<void> {
    while (more()) {
      try {
        await sample(p, into);
      } catch (e) {
        into.failures.push(String(e));
        if (into.failures.length > 20) return;
      }
    }
  }

  async function probeIdle(samples: number): Promise<ProbeSamples> {
    const into: ProbeSamples = { delivery: [], write: [], repolls: 0, failures: [] };
    let n = 0;
    await probeLoop(0, () => n++ < samples, into);
    return into;
  }

  port.on('message', async (m: AgentsRequest) => {
    try {
      switch (m.op) {
        case 'load': {
          const value = await load(m.nodes, m.ms, m.probes, m.changeFraction, data.port, m.clients);
          accepted += value.accepted;
          return port.postMessage({ ok: true, value }, [value.latencies.buffer as ArrayBuffer]);
        }
        case 'baseline': {
          // Unchanged reports (no generation moves on, which the Hub would see later as a change).
          const value = await load(m.nodes, m.ms, 0, 0, m.port);
          return port.postMessage({ ok: true, value }, [value.latencies.buffer as ArrayBuffer]);
        }
        case 'open': {
          const value = await openLoad(m.nodes, m.ms, m.rate, m.changeFraction);
          accepted += value.accepted;
          return port.postMessage({ ok: true, value }, [value.latencies.buffer as ArrayBuffer]);
        }
        case 'probe':
          return port.postMessage({ ok: true, value: await probeIdle(m.samples) });
        case 'stop':
          keepAlive.destroy();
          return port.postMessage({ ok: true, value: { accepted } });
      }
    } catch (e) {
      port.postMessage({ ok: false, error: String((e as Error).stack ?? e) });
    }
  });
}
