import { recoveryRef, type ObservedStream } from '@fleetplane/core';
import {
  configToApply,
  failedWith,
  KeyedSerial,
  lifecycleOf,
  missingStream,
  type LifecycleCommand,
  MAX_RECOVERY_POINTS,
  selectRecoveryPoint,
  staleGeneration,
  type ConfigurableExecutor,
  type RecoveryPoint,
} from './common.ts';
import { failed, succeeded, type AttemptCommand, type ExecutionResult } from './executor.ts';

/**
 * What a fault does to the attempt it fires on:
 * - `temporary` / `permanent`: nothing changes; failed with `injected_temporary` / `injected_permanent`
 *   (a `restore` says `pre_mutation`, since nothing moved).
 * - `lost_result`: the effect applies, then `apply` throws `LostResult` (the agent posts nothing).
 * - `crash_before`: `apply` throws `Crash` before any effect; `crash_after`: the effect applies, then `Crash`.
 *   Either leaves the executor `crashed` (see `SimExecutor.crashed`).
 * - `restore_refused`: a restore fails `recovery_point_mismatch`, `pre_mutation`, nothing changed.
 * - `restore_mid_write`: a restore fails `restore_write_failed`, `post_mutation`: the configuration was
 *   half written (applied version unknown, reported null) and the recovery point is kept.
 */
export type SimFaultKind =
  | 'temporary'
  | 'permanent'
  | 'lost_result'
  | 'crash_before'
  | 'crash_after'
  | 'restore_refused'
  | 'restore_mid_write';

/**
 * One armed fault. It fires on the next `times` attempts it matches (default 1; `Infinity` until removed),
 * optionally only for one stream or one operation. `restore_*` faults only ever match `restore` attempts.
 */
export interface SimFault {
  kind: SimFaultKind;
  times?: number;
  stream_id?: string;
  operation?: AttemptCommand['operation'];
}

/**
 * The armed faults, in order: an attempt takes the first fault that matches it (at most one per attempt);
 * a fault whose count runs out is removed. Mutable: push, splice or clear it at any time.
 */
export type SimFaults = SimFault[];

export interface SimExecutorOptions {
  /** Delay before every attempt takes effect (default 0). */
  latencyMs?: number;
  faults?: SimFaults;
}

/** Thrown by `apply` for a `lost_result` fault: the effect happened, the answer is lost. */
export class LostResult extends Error {
  constructor(message = 'simulated lost result') {
    super(message);
    this.name = 'LostResult';
  }
}

/** Thrown by `apply` (and then by `apply` and `observe`) after a simulated agent crash. */
export class Crash extends Error {
  constructor(message = 'simulated crash') {
    super(message);
    this.name = 'Crash';
  }
}

export interface SimExecutor extends ConfigurableExecutor {
  /** The armed faults (mutable). */
  faults: SimFaults;
  latencyMs: number;
  /**
   * Set by a `crash_*` fault. While set, `apply` and `observe` throw `Crash`, as a dead agent answers
   * nothing. `revive()` clears it; the streams kept running meanwhile, as real workloads outlive their agent.
   */
  crashed: boolean;
  revive(): void;
  /** Simulates a stream's process exiting on its own (code 0 → stopped, else failed) and fires onChange. */
  exit(streamId: string, code: number): void;
  /** Sets how many restarts within its window a stream's health reports (a start after an exit adds one) and fires onChange. */
  setRestarts(streamId: string, restarts: number): void;
  /** How many times a stream was (re)started: a restart shows as a new instance. */
  instance(streamId: string): number;
  /** The configuration content the node holds now. */
  configContent(): string | null;
}

interface SimStream {
  stream_id: string;
  generation: number;
  state: 'running' | 'stopped' | 'failed';
  last_action_id: string | null;
  error: string | null;
  instance: number;
  /** Its health (docs/agent-protocol.md, "Health"): the code of its exit on its own, and its restarts since. */
  exit_code: number | null;
  exited: boolean;
  restarts: number;
}

export function createSimExecutor(options: SimExecutorOptions = {}): SimExecutor {
  const streams = new Map<string, SimStream>();
  const listeners: Array<() => void> = [];
  const serial = new KeyedSerial();
  const config: { applied_version: string | null; content: string | null; points: Array<RecoveryPoint & { content: string }> } = {
    applied_version: null,
    content: null,
    points: [],
  };

  function takeFault(command: AttemptCommand): SimFaultKind | null {
    const index = sim.faults.findIndex(
      (f) =>
        (f.times ?? 1) > 0 &&
        (f.stream_id === undefined || f.stream_id === command.stream_id) &&
        (f.operation === undefined || f.operation === command.operation) &&
        (command.operation === 'restore' || (f.kind !== 'restore_refused' && f.kind !== 'restore_mid_write')),
    );
    if (index < 0) return null;
    const fault = sim.faults[index]!;
    const left = (fault.times ?? 1) - 1;
    if (left <= 0) sim.faults.splice(index, 1);
    else fault.times = left;
    return fault.kind;
  }

  function effect(command: AttemptCommand, fault: SimFaultKind | null): ExecutionResult {
    switch (command.operation) {
      case 'job_start':
      case 'job_stop':
      case 'job_restart':
      {
        const c = lifecycleOf(command);
        return c ? lifecycle(c) : missingStream(command);
      }
      case 'config_apply':
        return configApply(command);
      case 'restore':
        return restore(command, fault);
      default:
        return failed('permanent', 'unsupported_operation', `operation ${String((command as { operation: unknown }).operation)} is not supported`);
    }
  }

  function lifecycle(command: LifecycleCommand): ExecutionResult {
    const existing = streams.get(command.stream_id);
    if (existing && command.generation < existing.generation) return staleGeneration(command, existing.generation);
    const s: SimStream = existing ?? {
      stream_id: command.stream_id,
      generation: command.generation,
      state: 'stopped',
      last_action_id: null,
      error: null,
      instance: 0,
      exit_code: null,
      exited: false,
      restarts: 0,
    };
    streams.set(s.stream_id, s);
    // A start after an exit on its own is a restart, as the process executor counts it.
    const started = { state: 'running', error: null, instance: s.instance + 1, exit_code: null, exited: false, restarts: s.restarts + (s.exited ? 1 : 0) };
    if (command.operation === 'job_stop') {
      Object.assign(s, { generation: command.generation, state: 'stopped', error: null, exited: false, exit_code: null });
    } else if (command.operation === 'job_start') {
      if (!(s.state === 'running' && s.generation === command.generation)) Object.assign(s, { generation: command.generation, ...started });
    } else if (!(s.state === 'running' && s.generation === command.generation && command.action_id !== null && s.last_action_id === command.action_id)) {
      Object.assign(s, { generation: command.generation, ...started, last_action_id: command.action_id });
    }
    return succeeded;
  }

  function configApply(command: AttemptCommand): ExecutionResult {
    const target = configToApply(command);
    if (!target.ok) return failed('permanent', 'invalid_spec', target.message);
    if (config.applied_version === target.version && config.content === target.content) return succeeded;
    const ref = recoveryRef(command.attempt_id);
    if (command.flags['capture_recovery'] && config.applied_version !== null && config.content !== null && !config.points.some((p) => p.ref === ref)) {
      config.points.push({ ref, config_version: config.applied_version, captured_at: new Date().toISOString(), content: config.content });
      config.points.splice(0, Math.max(0, config.points.length - MAX_RECOVERY_POINTS));
    }
    config.applied_version = target.version;
    config.content = target.content;
    return succeeded;
  }

  function restore(command: AttemptCommand, fault: SimFaultKind | null): ExecutionResult {
    if (fault === 'restore_refused') {
      return failedWith('permanent', 'recovery_point_mismatch', 'injected: restore refused before touching anything', 'pre_mutation');
    }
    const selected = selectRecoveryPoint(command, config.points);
    if (!selected.ok) return failedWith('permanent', selected.code, selected.message, 'pre_mutation');
    const point = config.points.find((p) => p.ref === selected.point.ref)!;
    if (fault === 'restore_mid_write') {
      config.content = point.content.slice(0, Math.floor(point.content.length / 2));
      config.applied_version = null;
      return failedWith('permanent', 'restore_write_failed', `injected: restore of ${point.ref} failed mid-write; its revert failed too`, 'post_mutation');
    }
    config.applied_version = point.config_version;
    config.content = point.content;
    return succeeded;
  }

  const sim: SimExecutor = {
    faults: options.faults ?? [],
    latencyMs: options.latencyMs ?? 0,
    crashed: false,

    apply(command) {
      // Configuration attempts serialize apart from every stream (stream ids are never empty).
      return serial.run(command.stream_id ?? '', async () => {
        if (sim.crashed) throw new Crash('the simulated agent has crashed');
        if (sim.latencyMs > 0) await new Promise((r) => setTimeout(r, sim.latencyMs));
        if (sim.crashed) throw new Crash('the simulated agent has crashed');
        const fault = takeFault(command);
        switch (fault) {
          case 'temporary':
          case 'permanent':
            return failedWith(fault, `injected_${fault}`, `injected ${fault} failure`, command.operation === 'restore' ? 'pre_mutation' : null);
          case 'crash_before':
            sim.crashed = true;
            throw new Crash('simulated crash before applying');
          case 'crash_after':
            effect(command, null);
            sim.crashed = true;
            throw new Crash('simulated crash after applying');
          case 'lost_result':
            effect(command, null);
            throw new LostResult();
          default:
            return effect(command, fault);
        }
      });
    },

    async observe() {
      if (sim.crashed) throw new Crash('the simulated agent has crashed');
      return [...streams.values()]
        .sort((a, b) => (a.stream_id < b.stream_id ? -1 : a.stream_id > b.stream_id ? 1 : 0))
        .map((s): ObservedStream => {
          const observed = { stream_id: s.stream_id, generation: s.generation, state: s.state, last_action_id: s.last_action_id, error: s.error };
          if (s.state === 'running') return { ...observed, health: { status: 'running', exit_code: null, restarts: s.restarts } };
          return s.exited ? { ...observed, health: { status: 'exited', exit_code: s.exit_code, restarts: s.restarts } } : observed;
        });
    },

    forget(streamId, generation) {
      return serial.run(streamId, async () => {
        const s = streams.get(streamId);
        if (!s || s.generation > generation || s.state === 'running') return false;
        streams.delete(streamId);
        return true;
      });
    },

    async configuration() {
      if (sim.crashed) throw new Crash('the simulated agent has crashed');
      return { applied_version: config.applied_version, recovery_points: config.points.map((p) => ({ ref: p.ref, config_version: p.config_version })) };
    },

    onChange(listener) {
      listeners.push(listener);
    },

    async close() {
      listeners.length = 0;
    },

    revive() {
      sim.crashed = false;
    },

    exit(streamId, code) {
      const s = streams.get(streamId);
      if (!s || s.state !== 'running') return;
      s.state = code === 0 ? 'stopped' : 'failed';
      s.error = code === 0 ? 'exited on its own with code 0' : `exited with code ${code}`;
      s.exited = true;
      s.exit_code = code;
      for (const listener of listeners) listener();
    },

    setRestarts(streamId, restarts) {
      const s = streams.get(streamId);
      if (!s) return;
      s.restarts = restarts;
      for (const listener of listeners) listener();
    },

    instance(streamId) {
      return streams.get(streamId)?.instance ?? 0;
    },

    configContent() {
      return config.content;
    },
  };
  return sim;
}
