/**
 * The simulated agents of `npm run bench -- rollout`, in a child process of their own: 10,000 held long
 * polls are 10,000 sockets on each side, and one process may hold only 20,000 descriptors here (hard
 * limit), so the agents cannot share the Hub's. Their JSON and HTTP work is then off the Hub's event loop
 * too. The parent sends one operation at a time over IPC and gets its result back.
 *
 * Each agent behaves as a real one does: it holds a long poll (wait 20-25 s, sent again as soon as it is
 * answered), applies a configuration attempt, posts its result, and sends a full report at once.
 */
import http from 'node:http';
import { describeAnswer, hubRequest, keptAlive, type Answer } from './http-request.ts';

export interface AgentsOptions {
  /** The Hub's port on 127.0.0.1. */
  port: number;
  tag: string;
  nodes: number;
  operatorToken: string;
}

export type AgentsRequest =
  | { op: 'start'; options: AgentsOptions; spreadMs: number }
  /** A new version rolled out to the first `nodes` nodes. */
  | { op: 'rollout'; content: string; batchSize: number; nodes: number }
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

export interface AgentCounts {
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
  /** Attempt received → report answered, ms, one per configuration attempt. */
  applyMs: Float64Array;
}

export const rolloutNodeId = (i: number) => `edge-${i + 1}`;
export const rolloutAgentToken = (tag: string, node: string) => `bench-${tag}-${node}-agent`;
export const ROLLOUT_BOOT_ID = 'bench-boot-1';
/** The set-up sends each node's first report with this sequence number; the agents go on from it. */
export const FIRST_REPORT_SEQ = 1;

/** A full report of a node that runs no stream and holds the given configuration version. */
export function configReport(node: string, seq: number, appliedVersion: string | null) {
  return {
    node_id: node,
    boot_id: ROLLOUT_BOOT_ID,
    report_seq: seq,
    streams: [],
    configuration: { applied_version: appliedVersion, recovery_points: [] },
  };
}

/** The agents' side of the IPC: runs when this module is the child process forked by rollout.ts. */
function serve(send: (m: unknown) => void): void {
  let options: AgentsOptions | null = null;
  let keepAlive: http.Agent | null = null;
  let stopping = false;
  const loops: Promise<void>[] = [];
  const counts = { emptyPolls: 0, attempts: 0, results: 0, reports: 0, resent: 0, errors: 0, firstError: null as string | null };
  const applyMs: number[] = [];

  // Stopping destroys the sockets of the held polls, which fail as a socket the Hub closed would: not counted.
  const call = (method: string, path: string, token: string, body?: unknown): Promise<Answer> =>
    hubRequest(keepAlive!, options!.port, method, path, token, body, () => {
      if (!stopping) counts.resent++;
    });

  const fault = (what: string) => {
    counts.errors++;
    counts.firstError ??= what;
  };

  /** One node's agent, until stopped: poll, apply, answer, report, poll again. */
  async function agent(i: number, startAfterMs: number): Promise<void> {
    const o = options!;
    const node = rolloutNodeId(i);
    const token = rolloutAgentToken(o.tag, node);
    // Spread over 20-25 s, so that the fleet's polls do not all run out (and come back) together.
    const poll = `/api/v1/agent/attempts?wait=${20 + (i % 6)}`;
    let seq = FIRST_REPORT_SEQ;
    let applied: string | null = null;
    await new Promise((r) => setTimeout(r, startAfterMs));
    while (!stopping) {
      try {
        const r = await call('GET', poll, token);
        if (r.status !== 200) {
          fault(`poll ${node}: ${describeAnswer(r)}`);
          await new Promise((resolve) => setTimeout(resolve, 1000));
          continue;
        }
        const attempts = r.body.attempts as Array<{ attempt_id: string; generation: number; operation: string; config_version?: string | null }>;
        if (attempts.length === 0) {
          counts.emptyPolls++;
          continue;
        }
        const received = performance.now();
        counts.attempts += attempts.length;
        for (const a of attempts) {
          if (a.operation === 'config_apply') applied = a.config_version ?? null;
          const done = await call('POST', `/api/v1/agent/attempts/${a.attempt_id}/result`, token, { outcome: 'succeeded', generation: a.generation });
          if (done.status === 200) counts.results++;
          else fault(`result ${node}: ${describeAnswer(done)}`);
        }
        seq += 1;
        const reported = await call('POST', '/api/v1/agent/reports', token, configReport(node, seq, applied));
        if (reported.status === 202) counts.reports++;
        else fault(`report ${node}: ${describeAnswer(reported)}`);
        applyMs.push(performance.now() - received);
      } catch (e) {
        if (stopping) return;
        fault(`${node}: ${String(e)}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  async function createRollout(content: string, batchSize: number, count: number): Promise<Created> {
    const o = options!;
    const version = await call('POST', '/api/v1/config-versions', o.operatorToken, { content, format: 'text' });
    if (version.status !== 201) throw new Error(`POST /config-versions: ${describeAnswer(version)}`);
    const nodes = Array.from({ length: count }, (_, i) => rolloutNodeId(i));
    const body = { config_version: version.body.config_version, targets: { nodes }, batch_size: batchSize };
    const sentAt = performance.timeOrigin + performance.now();
    const r = await call('POST', '/api/v1/rollouts', o.operatorToken, body);
    const answeredAt = performance.timeOrigin + performance.now();
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
          return send({ ok: true, value: await createRollout(m.content, m.batchSize, m.nodes) });
        case 'stop': {
          stopping = true;
          keepAlive?.destroy(); // ends the held polls
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

if (process.send && process.env.FLEETPLANE_ROLLOUT_AGENTS === '1') {
  const send = process.send.bind(process);
  serve((m) => send(m));
  // The parent's end of the channel is this process' end: leave with it.
  process.on('disconnect', () => process.exit(0));
}
