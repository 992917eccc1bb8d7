/**
 * The simulated agents of `npm run bench -- rollout` and `soak`, in a child process of their own: 10,000 held
 * long polls are 10,000 sockets on each side, and one process may hold only 20,000 descriptors here (hard
 * limit), so the agents cannot share the Hub's. Their JSON and HTTP work is then off the Hub's event loop
 * too. The parent sends one operation at a time over IPC and gets its result back.
 *
 * Each agent behaves as a real one does: it holds a long poll (wait 20-25 s, sent again as soon as it is
 * answered), applies its attempts (a configuration, a stream's start or stop), posts their results, and sends
 * a full report at once, of the configuration and the streams it runs; with `reportEveryMs`, it also reports
 * every that many ms, as a real agent does. A node's reports go one at a time, so they arrive in order.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { agentsRpc } from './agents-rpc.ts';
import { describeAnswer, hubRequest, keptAlive, type Answer } from './http-request.ts';

export interface AgentsOptions {
  /** The Hub's port on 127.0.0.1. */
  port: number;
  tag: string;
  nodes: number;
  operatorToken: string;
  /** Each agent's full report every that many ms besides the one after its attempts; null: after attempts only. */
  reportEveryMs: number | null;
}

export type AgentsRequest =
  | { op: 'start'; options: AgentsOptions; spreadMs: number }
  /** A new version rolled out to `nodes` nodes, from node index `from` (default 0). */
  | { op: 'rollout'; content: string; batchSize: number; nodes: number; from?: number }
  /** The counts so far, and the attempts received since the last `progress`. */
  | { op: 'progress' }
  | { op: 'stop' };

export interface Created {
  status: number;
  rolloutId: string | null;
  /** The answer when it was not 201. */
  error: string | null;
  /** POST /rollouts sent and answered, ms since the epoch (comparable across processes). */
  sentAt: number;
  answeredAt: number;
}

export interface Counts {
  /** Long polls answered with no attempt (their wait ran out) and sent again. */
  emptyPolls: number;
  attempts: number;
  results: number;
  reports: number;
  /** Requests sent again after the Hub had closed their idle kept-alive socket. */
  resent: number;
  /** Requests that failed (each agent carries on, as a real one would). */
  errors: number;
  firstError: string | null;
}

export interface AgentCounts extends Counts {
  /** Attempt received → report answered, ms, one per attempt answered. */
  applyMs: Float64Array;
}

/** An attempt as its agent received it: `at` in ms since the epoch (comparable across processes). */
export interface Received {
  node: string;
  streamId: string | null;
  generation: number;
  at: number;
}

export interface Progress {
  counts: Counts;
  received: Received[];
}

export const pollingNodeId = (i: number) => `edge-${i + 1}`;
export const pollingAgentToken = (tag: string, node: string) => `bench-${tag}-${node}-agent`;
export const POLLING_BOOT_ID = 'bench-boot-1';
/** The set-up sends each node's first report with this sequence number; the agents go on from it. */
export const FIRST_REPORT_SEQ = 1;

/** A stream an agent runs, as its report carries it. */
interface Running {
  generation: number;
  state: 'running' | 'stopped';
}

/** A full report of a node holding the given configuration version and running `streams` (none: the set-up's). */
export function agentReport(node: string, seq: number, appliedVersion: string | null, streams: ReadonlyMap<string, Running> = new Map()) {
  return {
    node_id: node,
    boot_id: POLLING_BOOT_ID,
    report_seq: seq,
    streams: [...streams].map(([stream_id, s]) => ({ stream_id, generation: s.generation, state: s.state, last_action_id: null, error: null })),
    configuration: { applied_version: appliedVersion, recovery_points: [] },
  };
}

/** Forks the agents' process; `call` sends it one request at a time. */
export function forkPollingAgents(): { child: ChildProcess; call: <T>(r: AgentsRequest) => Promise<T> } {
  const child = fork(fileURLToPath(import.meta.url), [], { serialization: 'advanced', env: { ...process.env, FLEETPLANE_POLLING_AGENTS: '1' } });
  return { child, call: agentsRpc<AgentsRequest>(child, (r) => child.send(r), 'process') };
}

/** Ends the agents' process, if it still runs, and waits for it. */
export async function endPollingAgents(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill();
  await exited;
}

const now = () => performance.timeOrigin + performance.now();

/** The agents' side of the IPC: runs when this module is the child process forkPollingAgents forked. */
function serve(send: (m: unknown) => void): void {
  let options: AgentsOptions | null = null;
  let keepAlive: http.Agent | null = null;
  let stopping = false;
  const loops: Promise<void>[] = [];
  const counts: Counts = { emptyPolls: 0, attempts: 0, results: 0, reports: 0, resent: 0, errors: 0, firstError: null };
  const applyMs: number[] = [];
  let received: Received[] = [];

  // Stopping destroys the sockets of the held polls, which fail as a socket the Hub closed would: not counted.
  const call = (method: string, path: string, token: string, body?: unknown): Promise<Answer> =>
    hubRequest(keepAlive!, options!.port, method, path, token, body, () => {
      if (!stopping) counts.resent++;
    });

  const fault = (what: string) => {
    counts.errors++;
    counts.firstError ??= what;
  };
  /** Waits `ms`, or until the agents stop. */
  const waking = new Set<() => void>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waking.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waking.add(wake);
    });

  /** One node's agent, until stopped: poll, apply, answer, report, poll again; and its reports on their own. */
  async function agent(i: number, startAfterMs: number): Promise<void> {
    const o = options!;
    const node = pollingNodeId(i);
    const token = pollingAgentToken(o.tag, node);
    // Spread over 20-25 s, so that the fleet's polls do not all run out (and come back) together.
    const poll = `/api/v1/agent/attempts?wait=${20 + (i % 6)}`;
    let seq = FIRST_REPORT_SEQ;
    let applied: string | null = null;
    const streams = new Map<string, Running>();
    let reporting: Promise<void> = Promise.resolve();
    const report = (): Promise<void> =>
      (reporting = reporting.then(async () => {
        seq += 1;
        const r = await call('POST', '/api/v1/agent/reports', token, agentReport(node, seq, applied, streams));
        if (r.status === 202) counts.reports++;
        // Stopping cuts the sockets under reports in flight: one the Hub had read is sent again, and is stale.
        else if (!stopping) fault(`report ${node}: ${describeAnswer(r)}`);
      }).catch((e: unknown) => {
        if (!stopping) fault(`report ${node}: ${String(e)}`);
      }));
    await pause(startAfterMs);
    const periodic = o.reportEveryMs === null ? null : (async () => {
      while (!stopping) {
        await report();
        await pause(o.reportEveryMs!);
      }
    })();
    while (!stopping) {
      try {
        const r = await call('GET', poll, token);
        if (r.status !== 200) {
          fault(`poll ${node}: ${describeAnswer(r)}`);
          await pause(1000);
          continue;
        }
        const attempts = r.body.attempts as Array<{ attempt_id: string; stream_id: string | null; generation: number; operation: string; config_version?: string | null }>;
        if (attempts.length === 0) {
          counts.emptyPolls++;
          continue;
        }
        const at = now();
        counts.attempts += attempts.length;
        for (const a of attempts) {
          received.push({ node, streamId: a.stream_id, generation: a.generation, at });
          if (a.operation === 'config_apply') applied = a.config_version ?? null;
          else if (a.stream_id !== null) streams.set(a.stream_id, { generation: a.generation, state: a.operation === 'job_stop' ? 'stopped' : 'running' });
          const done = await call('POST', `/api/v1/agent/attempts/${a.attempt_id}/result`, token, { outcome: 'succeeded', generation: a.generation });
          if (done.status === 200) counts.results++;
          else fault(`result ${node}: ${describeAnswer(done)}`);
        }
        await report();
        applyMs.push(now() - at);
      } catch (e) {
        if (stopping) break;
        fault(`${node}: ${String(e)}`);
        await pause(1000);
      }
    }
    await periodic;
  }

  async function createRollout(content: string, batchSize: number, count: number, from: number): Promise<Created> {
    const o = options!;
    const version = await call('POST', '/api/v1/config-versions', o.operatorToken, { content, format: 'text' });
    if (version.status !== 201) throw new Error(`POST /config-versions: ${describeAnswer(version)}`);
    const nodes = Array.from({ length: count }, (_, k) => pollingNodeId((from + k) % o.nodes));
    const body = { config_version: version.body.config_version, targets: { nodes }, batch_size: batchSize };
    const sentAt = now();
    const r = await call('POST', '/api/v1/rollouts', o.operatorToken, body);
    const answeredAt = now();
    return { status: r.status, rolloutId: r.status === 201 ? r.body.rollout_id : null, error: r.status === 201 ? null : describeAnswer(r), sentAt, answeredAt };
  }

  process.on('message', async (m: AgentsRequest) => {
    try {
      switch (m.op) {
        case 'start': {
          options = m.options;
          keepAlive = keptAlive();
          for (let i = 0; i < m.options.nodes; i++) loops.push(agent(i, (i / m.options.nodes) * m.spreadMs));
          return send({ ok: true, value: null });
        }
        case 'rollout':
          return send({ ok: true, value: await createRollout(m.content, m.batchSize, m.nodes, m.from ?? 0) });
        case 'progress': {
          const value: Progress = { counts: { ...counts }, received };
          received = [];
          return send({ ok: true, value });
        }
        case 'stop': {
          stopping = true;
          keepAlive?.destroy(); // ends the held polls
          for (const wake of [...waking]) wake();
          await Promise.all(loops);
          const value: AgentCounts = { ...counts, applyMs: Float64Array.from(applyMs) };
          return send({ ok: true, value });
        }
      }
    } catch (e) {
      send({ ok: false, error: String((e as Error).stack ?? e) });
    }
  });
}

if (process.send && process.env.FLEETPLANE_POLLING_AGENTS === '1') {
  const send = process.send.bind(process);
  serve((m) => send(m));
  // The parent's end of the channel is this process' end: leave with it.
  process.on('disconnect', () => process.exit(0));
}
