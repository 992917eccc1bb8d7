import { randomUUID } from 'node:crypto';
import { caller, TOKENS } from '../support/hub.ts';
import { arm, type FleetNode } from './fleet.ts';
import type { Random } from './random.ts';

export interface DesiredBody {
  desired_state: 'running' | 'stopped';
  spec: { command: string; args: string[] };
  placement: { nodes: string[]; split: false };
}

/** A write the Hub acknowledged (a 2xx answer): it must be in the log, and its effect in the projections. */
export type Acknowledged =
  | { kind: 'stream'; stream_id: string; generation: number; desired: DesiredBody }
  | { kind: 'restart'; stream_id: string; generation: number }
  | { kind: 'labels'; node_id: string; labels: Record<string, string> }
  | { kind: 'maintenance'; node_id: string; maintenance: 'active' | 'draining' }
  | { kind: 'config_version'; config_version: string }
  | { kind: 'rollout'; rollout_id: string; config_version: string; nodes: string[] }
  | { kind: 'rollout_action'; rollout_id: string; action: 'pause' | 'resume' };

/** What the operators did and saw, shared by all of them. */
export interface OperatorLog {
  acknowledged: Acknowledged[];
  /** Answers no correct Hub gives here (a 5xx, a stale If-Match for the generation just acknowledged, …). */
  problems: string[];
  /** Requests sent again because no answer came (the Hub was down or died mid-request). */
  resent: number;
  faultsArmed: number;
}

/**
 * Tells a fault injector when a write leaves an operator, so that a kill can land while the Hub handles it:
 * the moment at which a committed write's answer is most likely lost.
 */
export class WriteTap {
  #waiting: Array<() => void> = [];

  /** Resolves when the next write is sent. */
  next(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  sent(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** The label every node carries, so a rollout's selector always resolves to the whole fleet. */
export const FLEET_LABEL = { fleet: 'fault' } as const;

/** How long one request is sent again and again before the run gives up on the Hub. */
const ANSWER_WITHIN_MS = 90_000;

/**
 * One simulated operator working the public API: desired-state writes with `Idempotency-Key` and `If-Match`,
 * restarts, label replacements, drains and undrains, rollouts, and faults armed on the simulated nodes.
 * Its streams and nodes are its own (operators run side by side), so it always knows the generation it
 * last wrote. A request that gets no answer is sent again, unchanged and with the same key, until one
 * comes: every operation ends acknowledged or refused, never unknown.
 */
export class Operator {
  readonly #api: ReturnType<typeof caller>;
  readonly #rng: Random;
  readonly #log: OperatorLog;
  readonly #writes: WriteTap;
  readonly #fleet: FleetNode[];
  readonly #streams: string[];
  readonly #nodes: string[];
  readonly #rollouts: boolean;
  readonly #crashes: boolean;
  readonly #generation = new Map<string, number>();
  readonly #running = new Map<string, boolean>();
  readonly #draining = new Set<string>();
  #rollout: string | null = null;
  #paused = false;
  #written = 0;

  constructor(
    hubUrl: string,
    rng: Random,
    shared: { log: OperatorLog; writes: WriteTap; fleet: FleetNode[] },
    own: { streams: string[]; nodes: string[]; rollouts: boolean; crashes?: boolean },
  ) {
    this.#api = caller(hubUrl);
    this.#rng = rng;
    this.#log = shared.log;
    this.#writes = shared.writes;
    this.#fleet = shared.fleet;
    this.#streams = own.streams;
    this.#nodes = own.nodes;
    this.#rollouts = own.rollouts;
    this.#crashes = own.crashes ?? true;
  }

  /** Labels its nodes with the fleet label and writes each of its streams once. */
  async setUp(): Promise<void> {
    for (const node of this.#nodes) await this.#labels(node);
    for (const stream of this.#streams) await this.#write(stream);
  }

  /** One operation, chosen at random. */
  async step(): Promise<void> {
    const rng = this.#rng;
    const roll = rng.next();
    const stream = rng.pick(this.#streams);
    if (roll < 0.4) return this.#write(stream);
    if (roll < 0.55) return this.#running.get(stream) ? this.#restart(stream) : this.#write(stream);
    if (roll < 0.65 && this.#nodes.length > 0) return this.#labels(rng.pick(this.#nodes));
    if (roll < 0.75 && this.#nodes.length > 0) return this.#maintenance(rng.pick(this.#nodes));
    if (roll < 0.9) return this.#armFault();
    if (this.#rollouts) return this.#rolloutStep();
  }

  /** Undrains its nodes, so that everything it wrote can converge. */
  async undrainAll(): Promise<void> {
    for (const node of [...this.#draining]) await this.#maintenance(node);
  }

  /** Resumes its rollout if it paused it, so that the rollout can finish. */
  async resumeRollout(): Promise<void> {
    if (this.#paused) await this.#rolloutAction('resume');
  }

  /** Writes anew each of its streams whose current generation is blocked somewhere: only that resumes it (SPEC C2). */
  async rewriteBlocked(): Promise<void> {
    for (const stream of this.#streams) {
      const s = (await this.#send('GET', `/api/v1/streams/${stream}`)).body;
      if (s.intents.some((i: { generation: number; state: string }) => i.generation === s.generation && i.state === 'blocked')) await this.#write(stream);
    }
  }

  async #write(stream: string): Promise<void> {
    const rng = this.#rng;
    this.#written += 1;
    const desired: DesiredBody = {
      desired_state: rng.chance(0.75) ? 'running' : 'stopped',
      spec: { command: 'sim', args: [`${stream}-${this.#written}`] },
      placement: { nodes: rng.subset(this.#fleet.map((n) => n.nodeId), 2), split: false },
    };
    const generation = this.#generation.get(stream) ?? 0;
    const r = await this.#send('PUT', `/api/v1/streams/${stream}`, desired, { 'if-match': `"${generation}"` });
    if (r.status !== 200) return this.#unexpected('PUT', `/api/v1/streams/${stream}`, r);
    const acked = etagGeneration(r.headers);
    this.#generation.set(stream, acked);
    this.#running.set(stream, desired.desired_state === 'running');
    this.#log.acknowledged.push({ kind: 'stream', stream_id: stream, generation: acked, desired });
  }

  async #restart(stream: string): Promise<void> {
    const generation = this.#generation.get(stream) ?? 0;
    const path = `/api/v1/streams/${stream}/actions`;
    const r = await this.#send('POST', path, { action: 'restart' }, { 'if-match': `"${generation}"` });
    if (r.status !== 200) return this.#unexpected('POST', path, r);
    const acked = etagGeneration(r.headers);
    this.#generation.set(stream, acked);
    this.#log.acknowledged.push({ kind: 'restart', stream_id: stream, generation: acked });
  }

  async #labels(node: string): Promise<void> {
    const labels: Record<string, string> = { ...FLEET_LABEL, zone: this.#rng.pick(['a', 'b', 'c']) };
    if (this.#rng.chance(0.5)) labels['tier'] = this.#rng.pick(['edge', 'core']);
    const path = `/api/v1/nodes/${node}/labels`;
    const r = await this.#send('PUT', path, { labels });
    if (r.status !== 200) return this.#unexpected('PUT', path, r);
    this.#log.acknowledged.push({ kind: 'labels', node_id: node, labels });
  }

  async #maintenance(node: string): Promise<void> {
    const drain = !this.#draining.has(node);
    const path = `/api/v1/nodes/${node}/${drain ? 'drain' : 'undrain'}`;
    const r = await this.#send('POST', path);
    if (r.status !== 200) return this.#unexpected('POST', path, r);
    if (drain) this.#draining.add(node);
    else this.#draining.delete(node);
    this.#log.acknowledged.push({ kind: 'maintenance', node_id: node, maintenance: drain ? 'draining' : 'active' });
  }

  /**
   * A fault on a simulated node's next lifecycle attempt: its result lost, a temporary or permanent failure,
   * or (unless `crashes` is false) the node's agent crashing before or after carrying it out (revived later
   * by the fleet).
   */
  async #armFault(): Promise<void> {
    const rng = this.#rng;
    const crashes = this.#crashes ? (['crash_before', 'crash_after'] as const) : [];
    const kind = rng.pick(['lost_result', 'lost_result', 'temporary', 'permanent', ...crashes] as const);
    arm(rng.pick(this.#fleet), { kind, operation: rng.pick(['job_start', 'job_stop', 'job_restart'] as const) });
    this.#log.faultsArmed += 1;
  }

  /**
   * Its rollout paused or resumed while it applies (one rollout per node at a time, so a new one only when
   * the last has finished).
   */
  async #rolloutStep(): Promise<void> {
    if (this.#paused) return this.#rolloutAction('resume');
    if (this.#rollout !== null && (await this.#send('GET', `/api/v1/rollouts/${this.#rollout}`)).body.state === 'applying') {
      return this.#rolloutAction('pause');
    }
    return this.rollOut();
  }

  async #rolloutAction(action: 'pause' | 'resume'): Promise<void> {
    const path = `/api/v1/rollouts/${this.#rollout}/actions`;
    const r = await this.#send('POST', path, { action });
    // A rollout that converged since it was read takes no more actions.
    if (r.status === 409 && r.body.code === 'rollout_terminal' && action === 'pause') return;
    if (r.status !== 200) return this.#unexpected('POST', path, r);
    this.#paused = action === 'pause';
    this.#log.acknowledged.push({ kind: 'rollout_action', rollout_id: this.#rollout!, action });
  }

  /** A new configuration version rolled out to the whole fleet, in batches of one or two nodes. */
  async rollOut(): Promise<void> {
    const content = `workers: ${this.#rng.int(1, 64)}\nrevision: ${randomUUID()}\n`;
    const v = await this.#send('POST', '/api/v1/config-versions', { content, format: 'yaml' });
    if (v.status !== 201) return this.#unexpected('POST', '/api/v1/config-versions', v);
    this.#log.acknowledged.push({ kind: 'config_version', config_version: v.body.config_version });
    const batchSize = this.#rng.int(1, 2);
    const r = await this.#send('POST', '/api/v1/rollouts', { config_version: v.body.config_version, targets: { selector: FLEET_LABEL }, batch_size: batchSize });
    if (r.status !== 201) return this.#unexpected('POST', '/api/v1/rollouts', r);
    this.#rollout = r.body.rollout_id;
    this.#log.acknowledged.push({
      kind: 'rollout',
      rollout_id: r.body.rollout_id,
      config_version: v.body.config_version,
      nodes: r.body.targets.map((t: { node_id: string }) => t.node_id),
    });
  }

  /**
   * Sends one request until it is answered. Writes carry an `Idempotency-Key` (the same on every resend), so
   * a write that committed before its answer was lost is answered, not made twice.
   */
  async #send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const key = method === 'GET' ? null : randomUUID();
    const deadline = Date.now() + ANSWER_WITHIN_MS;
    for (;;) {
      if (key) this.#writes.sent();
      try {
        const r = await this.#api.call(method, path, {
          token: TOKENS.operator,
          ...(body !== undefined ? { body } : {}),
          headers: { ...headers, ...(key ? { 'idempotency-key': key } : {}) },
        });
        if (r.status < 500) return r;
        this.#log.problems.push(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
      } catch {
        // No answer: the Hub is down, or died with the request in flight.
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer from the Hub within ${ANSWER_WITHIN_MS} ms`);
      this.#log.resent += 1;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  #unexpected(method: string, path: string, r: { status: number; body: unknown }): void {
    this.#log.problems.push(`${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
}

function etagGeneration(headers: Headers): number {
  return Number(/"(\d+)"/.exec(headers.get('etag') ?? '')?.[1]);
}
