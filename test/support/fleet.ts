import { agentToken, type TestHub } from './hub.ts';

export interface ObservedStream {
  stream_id: string;
  generation: number;
  state: string;
  last_action_id?: string | null;
  health?: { status: 'running' | 'exited'; exit_code: number | null; restarts: number };
}

/** A simulated agent speaking the agent protocol over HTTP to a test Hub. */
export class TestAgent {
  readonly nodeId: string;
  readonly hub: Pick<TestHub, 'call'>;
  bootId: string;
  seq = 0;
  streams = new Map<string, ObservedStream>();
  /** The configuration version this simulated node holds. */
  appliedConfig: string | null = null;
  /** The recovery points this simulated node reports holding. */
  recoveryPoints: Array<{ ref: string; config_version: string }> = [];
  constructor(hub: Pick<TestHub, 'call'>, nodeId: string, bootId = `${nodeId}-boot-1`) {
    this.hub = hub;
    this.nodeId = nodeId;
    this.bootId = bootId;
  }

  /** A node registered, with its first report accepted. */
  static async reporting(hub: Pick<TestHub, 'call'>, nodeId: string): Promise<TestAgent> {
    const a = new TestAgent(hub, nodeId);
    expect((await a.register()).status).toBe(200);
    expect((await a.report()).status).toBe(202);
    return a;
  }
  call(method: string, path: string, body?: unknown) {
    return this.hub.call(method, path, { token: agentToken(this.nodeId), ...(body !== undefined ? { body } : {}) });
  }
  register(extra: Record<string, unknown> = {}) {
    return this.call('POST', '/api/v1/agent/register', { node_id: this.nodeId, boot_id: this.bootId, ...extra });
  }
  /** Sends the next full report of what this agent believes runs. */
  report() {
    return this.call('POST', '/api/v1/agent/reports', this.nextReport());
  }
  /** The body of the next full report (its sequence taken). */
  nextReport() {
    this.seq += 1;
    return {
      node_id: this.nodeId,
      boot_id: this.bootId,
      report_seq: this.seq,
      streams: [...this.streams.values()].map((s) => ({ last_action_id: null, ...s })),
      configuration: { applied_version: this.appliedConfig, recovery_points: this.recoveryPoints },
    };
  }
  /** Takes the node's attempts (long poll of `wait` seconds). */
  async attempts(wait = 0): Promise<any[]> {
    const r = await this.call('GET', `/api/v1/agent/attempts?wait=${wait}`);
    if (r.status !== 200) throw new Error(`attempts: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.attempts;
  }
  /** Applies an attempt to the simulated node, as an executor would. */
  apply(attempt: { stream_id: string | null; generation: number; operation: string; action_id: string | null; config_version?: string | null }) {
    if (attempt.stream_id === null) {
      // An apply, or a restore: either way the node then holds the attempt's version.
      this.appliedConfig = attempt.config_version ?? null;
      return;
    }
    this.streams.set(attempt.stream_id, {
      stream_id: attempt.stream_id,
      generation: attempt.generation,
      state: attempt.operation === 'job_stop' ? 'stopped' : 'running',
      last_action_id: attempt.action_id,
    });
  }
  result(attemptId: string, body: Record<string, unknown>) {
    return this.call('POST', `/api/v1/agent/attempts/${attemptId}/result`, body);
  }
  /** A new process: new boot id, sequence from the start. */
  restart(bootId: string) {
    this.bootId = bootId;
    this.seq = 0;
  }
}

/** Waits until `check` returns a value other than undefined, polling; fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Sweeps until no attempt of the stream is left dispatched, as the sweeper does every second: a sweep that
 * meets the node's row or the intent held by a pass in flight leaves the attempt to the next one (SPEC C5).
 */
export const sweptOut = (hub: TestHub, stream: string): Promise<true> =>
  eventually(async () => {
    await hub.context.reconciler.sweep();
    const dispatched = await hub.context.database.db
      .selectFrom('attempts')
      .select('attempt_id')
      .where('stream_id', '=', stream)
      .where('state', '=', 'dispatched')
      .execute();
    return dispatched.length === 0 ? true : undefined;
  });

/** Waits for the reconcile worker, then takes the node's attempts for one stream (long polls of 1 s). */
export const takeAttempts = (agent: TestAgent, streamId: string): Promise<any[]> =>
  eventually(async () => {
    const got = (await agent.attempts(1)).filter((x) => x.stream_id === streamId);
    return got.length ? got : undefined;
  });

/** Waits for the reconcile worker, then takes the node's configuration attempts (applies and restores). */
export const takeConfigAttempts = (agent: TestAgent): Promise<any[]> =>
  eventually(async () => {
    const got = (await agent.attempts(1)).filter((x) => x.stream_id === null);
    return got.length ? got : undefined;
  });

/** The intent of the stream's latest generation on the node. */
export async function latestIntent(hub: Pick<TestHub, 'call'>, streamId: string, nodeId: string): Promise<any> {
  const items = (await hub.call('GET', `/api/v1/intents?stream_id=${streamId}&node_id=${nodeId}`)).body.items as Array<{ generation: number }>;
  return items.sort((a, b) => b.generation - a.generation)[0];
}
