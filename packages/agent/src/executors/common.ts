import { failed, type AttemptCommand, type Executor, type ExecutionResult } from './executor.ts';

/** The configuration part of a full report (docs/agent-protocol.md, "Reports": `configuration`). */
export interface ObservedConfiguration {
  applied_version: string | null;
  recovery_points: Array<{ ref: string; config_version: string }>;
}

/**
 * An executor that also says which configuration it holds, for the `configuration` part of a report.
 * Both `process` and `sim` implement it; `Executor` itself does not carry it (yet).
 */
export interface ConfigurableExecutor extends Executor {
  configuration(): Promise<ObservedConfiguration>;
}

export const isConfigurable = (executor: Executor): executor is ConfigurableExecutor =>
  typeof (executor as Partial<ConfigurableExecutor>).configuration === 'function';

/** A recovery point as an executor keeps it: the configuration that was current before an apply. */
export interface RecoveryPoint {
  ref: string;
  /** The version that was applied when the point was captured, i.e. the version a restore brings back. */
  config_version: string;
  captured_at: string;
}

/** At most this many recovery points are kept per node; the oldest go first. */
export const MAX_RECOVERY_POINTS = 32;


export function failedWith(
  failureClass: 'temporary' | 'permanent',
  code: string,
  message: string,
  mutation: 'pre_mutation' | 'post_mutation' | null,
): ExecutionResult {
  return { outcome: 'failed', failure_class: failureClass, code, message, mutation };
}

/** A lifecycle attempt: one that names its stream. */
export type LifecycleCommand = AttemptCommand & { stream_id: string };

export const lifecycleOf = (command: AttemptCommand): LifecycleCommand | null => (command.stream_id === null ? null : (command as LifecycleCommand));

/** A lifecycle attempt that names no stream: there is nothing to start or stop. */
export const missingStream = (command: AttemptCommand): ExecutionResult => failed('permanent', 'invalid_attempt', `${command.operation} needs a stream_id`);

/** A lifecycle attempt for a generation older than the one the node already applied for that stream. */
export function staleGeneration(command: LifecycleCommand, current: number): ExecutionResult {
  return {
    outcome: 'failed',
    failure_class: 'stale_generation',
    code: 'stale_generation',
    message: `stream ${command.stream_id} is at generation ${current}; attempt is for ${command.generation}`,
    mutation: null,
  };
}

/** What a process stream runs: `spec.command` with `spec.args` and `spec.env` (docs/http-api.md, `PUT /api/v1/streams/{id}`). */
export interface ProcessSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export function parseProcessSpec(spec: Record<string, unknown>): { ok: true; value: ProcessSpec } | { ok: false; message: string } {
  const { command, args = [], env = {} } = spec as { command?: unknown; args?: unknown; env?: unknown };
  if (typeof command !== 'string' || command.length === 0) return { ok: false, message: 'spec.command must be a non-empty string' };
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) return { ok: false, message: 'spec.args must be an array of strings' };
  if (typeof env !== 'object' || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === 'string')) {
    return { ok: false, message: 'spec.env must be an object of string values' };
  }
  return { ok: true, value: { command, args: args as string[], env: env as Record<string, string> } };
}

/** The version and content a `config_apply` writes: `spec.content` when a string, else the version itself. */
export function configToApply(command: AttemptCommand): { ok: true; version: string; content: string } | { ok: false; message: string } {
  const version = command.config_version;
  if (typeof version !== 'string' || version.length === 0) return { ok: false, message: 'config_apply needs a config_version' };
  const content = command.spec['content'];
  if (content !== undefined && typeof content !== 'string') return { ok: false, message: 'spec.content must be a string' };
  return { ok: true, version, content: content ?? version };
}

/**
 * Which recovery point a `restore` puts back: `spec.recovery_ref` when given (and, when the command also
 * names a `config_version`, it must be a point of that version); else the newest point of the command's
 * `config_version`; else, with no version either, the newest point. Nothing is touched on a miss.
 */
export function selectRecoveryPoint(
  command: AttemptCommand,
  points: readonly RecoveryPoint[],
): { ok: true; point: RecoveryPoint } | { ok: false; code: 'no_recovery_point' | 'recovery_point_mismatch'; message: string } {
  const ref = command.spec['recovery_ref'];
  const version = command.config_version;
  if (typeof ref === 'string') {
    const point = points.find((p) => p.ref === ref);
    if (!point) return { ok: false, code: 'no_recovery_point', message: `no recovery point ${ref} on this node` };
    if (version !== null && point.config_version !== version) {
      return { ok: false, code: 'recovery_point_mismatch', message: `recovery point ${ref} holds ${point.config_version}, not ${version}` };
    }
    return { ok: true, point };
  }
  const candidates = version === null ? points : points.filter((p) => p.config_version === version);
  const point = candidates.at(-1);
  if (!point) {
    return { ok: false, code: 'no_recovery_point', message: version === null ? 'no recovery point on this node' : `no recovery point of ${version} on this node` };
  }
  return { ok: true, point };
}

/** Runs tasks one at a time per key (one stream's attempts never interleave). */
export class KeyedSerial {
  #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}

/**
 * SPEC E3: the environment a split placement's process reads its share from: `FLEETPLANE_PLACEMENT_INDEX`
 * (from 0) and `FLEETPLANE_PLACEMENT_COUNT`, and `FLEETPLANE_PEERS`, a JSON array of every node of the
 * placement in order, `{"node_id", "data_address"}`, this one included. Empty for any other stream.
 */
export function placementEnv(placement: AttemptCommand['placement']): Record<string, string> {
  if (!placement) return {};
  return {
    FLEETPLANE_PLACEMENT_INDEX: String(placement.index),
    FLEETPLANE_PLACEMENT_COUNT: String(placement.count),
    FLEETPLANE_PEERS: JSON.stringify(placement.peers),
  };
}
