import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  appendFileSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { recoveryRef, type ObservedStream } from '@fleetplane/core';
import {
  configToApply,
  failedWith,
  KeyedSerial,
  lifecycleOf,
  missingStream,
  type LifecycleCommand,
  MAX_RECOVERY_POINTS,
  parseProcessSpec,
  placementEnv,
  selectRecoveryPoint,
  staleGeneration,
  type ConfigurableExecutor,
  type ObservedConfiguration,
  type ProcessSpec,
  type RecoveryPoint,
} from './common.ts';
import { failed, succeeded, type AttemptCommand, type ExecutionResult } from './executor.ts';
import { errorFields, type Log } from '../log.ts';
import { childEnv, childrenOf, procStat, type FoundChild } from './orphans.ts';

/** Default size past which a stream's output.log is rotated to output.log.1. */
export const OUTPUT_LOG_MAX_BYTES = 16 * 1024 * 1024;

export interface ProcessExecutorOptions {
  /** Everything the executor keeps: `streams/<id>/` (state.json, output.log, cwd) and `config/`. */
  stateDir: string;
  /** How long a stop waits after SIGTERM before SIGKILL (default 5000). */
  stopGraceMs?: number;
  /** How often children adopted from an earlier agent are checked for exit, and output logs for size (default 1000). */
  adoptedPollMs?: number;
  /** Past this size a stream's output.log is copied to output.log.1 and truncated (default OUTPUT_LOG_MAX_BYTES). */
  logMaxBytes?: number;
  /** How far back a stream's restarts after an exit on its own count in its reported health (default 10 minutes). */
  healthWindowMs?: number;
  /** Where it says what the agent's log should (a state file it cannot read); silent without one. */
  log?: Log;
  /** Awaited between a child's spawn and the save of its pid: a test's seam to kill the agent there. */
  spawned?: (pid: number) => Promise<void>;
}

export interface ProcessExecutor extends ConfigurableExecutor {
  /** Stops every child (SIGTERM, then SIGKILL) and marks its stream desired stopped: for tests and demos. */
  stopAll(): Promise<void>;
  /** The pid of a stream's live child, or null. */
  pid(streamId: string): number | null;
}

/** What is kept per stream in `streams/<id>/state.json`. */
interface StreamRecord {
  stream_id: string;
  /** Generation of the last lifecycle attempt applied to this stream. */
  generation: number;
  desired: 'running' | 'stopped';
  last_action_id: string | null;
  spec: ProcessSpec | null;
  pid: number | null;
  /**
   * The generation `pid` was started for. While a new generation replaces an older process, the old one is
   * still alive: it is reported `starting`, never as the new generation running (SPEC A9). Absent in
   * records written before it existed: `generation`.
   */
  pid_generation?: number;
  /** Kernel start time of `pid` (Linux /proc), so a reused pid is never taken for our child. */
  start_time: string | null;
  /** How the last child ended on its own (null exit code and signal: unknown, it was not our child). */
  exit: { code: number | null; signal: string | null } | null;
  /** Why the stream is not running as desired: a failed start or an exit on its own. */
  error: string | null;
  /** When its process was started again after it had ended on its own (ms since the epoch), within the health window. */
  restarts_at?: number[];
}

interface ConfigState {
  applied_version: string | null;
  /**
   * SHA-256 (hex) of the content `applied_version` was applied with: `config/current` is written before this
   * file, so after a crash between the two it may hold another content. Absent in files written before it was.
   */
  applied_digest?: string | null;
  recovery_points: RecoveryPoint[];
}

/**
 * Supervises one real child process per stream. Children run detached (their own process group), with
 * output appended to `streams/<id>/output.log`, so they outlive the agent: `close()` leaves them running
 * and a new executor on the same state dir adopts them again by pid.
 */
export function createProcessExecutor(options: ProcessExecutorOptions): ProcessExecutor {
  return new ProcessExecutorImpl(options);
}

class ProcessExecutorImpl implements ProcessExecutor {
  readonly #stateDir: string;
  /** The state dir as its children's environment names it: without symlinks, so every spelling of it agrees. */
  readonly #stateDirName: string;
  readonly #stopGraceMs: number;
  readonly #healthWindowMs: number;
  readonly #logMaxBytes: number;
  readonly #log: Log;
  readonly #spawned: (pid: number) => Promise<void>;
  readonly #records = new Map<string, StreamRecord>();
  /** Children this executor spawned itself (it gets their exit events); others were adopted. */
  readonly #children = new Map<string, ChildProcess>();
  /** Pids being stopped on purpose: their exit is not a change on its own. */
  readonly #stopping = new Set<number>();
  readonly #listeners: Array<() => void> = [];
  readonly #streamSerial = new KeyedSerial();
  readonly #configSerial = new KeyedSerial();
  readonly #watch: NodeJS.Timeout;
  #closed = false;

  constructor(options: ProcessExecutorOptions) {
    this.#stateDir = resolve(options.stateDir);
    this.#stopGraceMs = options.stopGraceMs ?? 5000;
    this.#healthWindowMs = options.healthWindowMs ?? 600_000;
    this.#logMaxBytes = options.logMaxBytes ?? OUTPUT_LOG_MAX_BYTES;
    this.#log = options.log ?? (() => undefined);
    this.#spawned = options.spawned ?? (async () => undefined);
    mkdirSync(join(this.#stateDir, 'streams'), { recursive: true });
    mkdirSync(join(this.#stateDir, 'config', 'recovery'), { recursive: true });
    this.#stateDirName = realpathSync(this.#stateDir);
    this.#load();
    this.#claimUnsaved();
    // Log rotation rides on this timer rather than on observe(): observe() runs only once the agent has
    // registered and reports, and a workload keeps writing while the Hub is unreachable.
    this.#watch = setInterval(() => {
      this.#checkAdopted();
      this.#rotateLogs();
    }, options.adoptedPollMs ?? 1000);
    this.#watch.unref();
  }

  async apply(command: AttemptCommand): Promise<ExecutionResult> {
    if (this.#closed) throw new Error('process executor is closed');
    switch (command.operation) {
      case 'job_start':
      case 'job_stop':
      case 'job_restart':
      {
        const c = lifecycleOf(command);
        return c ? this.#streamSerial.run(c.stream_id, () => this.#lifecycle(c)) : missingStream(command);
      }
      case 'config_apply':
        return this.#configSerial.run('config', async () => this.#configApply(command));
      case 'restore':
        return this.#configSerial.run('config', async () => this.#restore(command));
      default:
        return failed('permanent', 'unsupported_operation', `operation ${String((command as { operation: unknown }).operation)} is not supported`);
    }
  }

  async observe(): Promise<ObservedStream[]> {
    return [...this.#records.values()]
      .sort((a, b) => (a.stream_id < b.stream_id ? -1 : a.stream_id > b.stream_id ? 1 : 0))
      .map((rec) => this.#observed(rec));
  }

  async forget(streamId: string, generation: number): Promise<boolean> {
    return this.#streamSerial.run(streamId, async () => {
      const rec = this.#records.get(streamId);
      if (!rec || rec.generation > generation || (rec.pid !== null && isAlive(rec.pid, rec.start_time))) return false;
      // The directory first: if it cannot go, the record stays and the next poll's removal tries again.
      rmSync(this.#streamDir(streamId), { recursive: true, force: true });
      this.#records.delete(streamId);
      return true;
    });
  }

  async configuration(): Promise<ObservedConfiguration> {
    const state = this.#readConfigState();
    return { applied_version: state.applied_version, recovery_points: state.recovery_points.map((p) => ({ ref: p.ref, config_version: p.config_version })) };
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  pid(streamId: string): number | null {
    const rec = this.#records.get(streamId);
    return rec && rec.pid !== null && isAlive(rec.pid, rec.start_time) ? rec.pid : null;
  }

  /** Leaves every child running: an agent restart must not stop the workload. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watch);
    for (const child of this.#children.values()) child.removeAllListeners('exit');
    this.#children.clear();
    this.#listeners.length = 0;
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.#records.values()].map((rec) =>
        this.#streamSerial.run(rec.stream_id, async () => {
          rec.desired = 'stopped';
          this.#persist(rec);
          await this.#stop(rec);
        }),
      ),
    );
  }

  // ---- lifecycle ----

  async #lifecycle(command: LifecycleCommand): Promise<ExecutionResult> {
    const existing = this.#records.get(command.stream_id);
    if (existing && command.generation < existing.generation) return staleGeneration(command, existing.generation);
    const rec: StreamRecord = existing ?? {
      stream_id: command.stream_id,
      generation: command.generation,
      desired: 'stopped',
      last_action_id: null,
      spec: null,
      pid: null,
      start_time: null,
      exit: null,
      error: null,
    };

    if (command.operation === 'job_stop') {
      const parsed = parseProcessSpec(command.spec);
      if (parsed.ok) rec.spec = parsed.value;
      rec.generation = command.generation;
      rec.desired = 'stopped';
      rec.error = null;
      this.#records.set(rec.stream_id, rec);
      this.#persist(rec);
      return this.#stop(rec);
    }

    // job_start and job_restart run the command's spec (a restart without one reruns the last spec).
    const parsed = parseProcessSpec(command.spec);
    let spec: ProcessSpec;
    // The placement's share rides in the environment, so a restart without a spec reruns it too (E3).
    if (parsed.ok) spec = { ...parsed.value, env: { ...parsed.value.env, ...placementEnv(command.placement) } };
    else if (command.operation === 'job_restart' && Object.keys(command.spec).length === 0 && rec.spec) spec = rec.spec;
    else return failed('permanent', 'invalid_spec', parsed.message);
    const found = findExecutable(spec.command, this.#streamDir(rec.stream_id), { ...process.env, ...spec.env }['PATH']);
    if (found !== 'found') {
      return found === 'not_found'
        ? failed('permanent', 'command_not_found', `command not found: ${spec.command}`)
        : failed('permanent', 'command_not_executable', `command is not executable: ${spec.command}`);
    }

    const alive = rec.pid !== null && isAlive(rec.pid, rec.start_time);
    if (command.operation === 'job_start') {
      // Idempotent: already running this generation.
      if (alive && rec.desired === 'running' && rec.generation === command.generation) return succeeded;
    } else if (alive && rec.generation === command.generation && command.action_id !== null && rec.last_action_id === command.action_id) {
      // This restart was already carried out (a repeated attempt): do not restart twice.
      return succeeded;
    }

    // A start after the process ended on its own is a restart: it counts in the stream's health.
    const restart = rec.desired === 'running' && rec.exit !== null && !alive;
    rec.generation = command.generation;
    rec.desired = 'running';
    rec.spec = spec;
    this.#records.set(rec.stream_id, rec);
    this.#persist(rec);
    const stopped = await this.#stop(rec);
    if (stopped.outcome !== 'succeeded') return stopped;
    const started = await this.#start(rec, spec);
    if (started.outcome === 'succeeded' && restart) {
      rec.restarts_at = [...this.#restartsWithinWindow(rec), Date.now()];
      this.#persist(rec);
    }
    if (started.outcome === 'succeeded' && command.operation === 'job_restart') {
      rec.last_action_id = command.action_id;
      this.#persist(rec);
    }
    return started;
  }

  async #start(rec: StreamRecord, spec: ProcessSpec): Promise<ExecutionResult> {
    const dir = this.#streamDir(rec.stream_id);
    mkdirSync(dir, { recursive: true });
    const log = openSync(join(dir, 'output.log'), 'a');
    let child: ChildProcess;
    try {
      writeSync(log, `[${new Date().toISOString()}] fleetplane: starting generation ${rec.generation}: ${[spec.command, ...spec.args].join(' ')}\n`);
      // Named in its environment, so a later agent finds it even if this one dies before saving its pid (#claimUnsaved).
      const env = { ...process.env, ...spec.env, ...childEnv(this.#stateDirName, rec.stream_id, rec.generation) };
      child = spawn(spec.command, spec.args, { cwd: dir, env, stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log); // the child holds its own copy
    }
    const spawnError = await new Promise<NodeJS.ErrnoException | null>((done) => {
      child.once('spawn', () => done(null));
      child.once('error', (error) => done(error));
    });
    if (spawnError || child.pid === undefined) {
      const code = spawnError?.code;
      const message = `cannot start ${spec.command}: ${spawnError?.message ?? 'no pid'}`;
      rec.pid = null;
      rec.start_time = null;
      rec.exit = null;
      rec.error = message;
      this.#persist(rec);
      this.#logLine(rec, message);
      if (code === 'ENOENT') return failed('permanent', 'command_not_found', message);
      if (code === 'EACCES') return failed('permanent', 'command_not_executable', message);
      return failed('temporary', 'spawn_failed', message);
    }
    const pid = child.pid;
    child.unref();
    child.on('error', () => undefined); // a later kill error must not become an unhandled 'error' event
    child.once('exit', (code, signal) => {
      if (this.#children.get(rec.stream_id) === child) this.#children.delete(rec.stream_id);
      if (this.#stopping.delete(pid)) return;
      this.#exitedOnItsOwn(rec.stream_id, pid, code, signal);
    });
    this.#children.set(rec.stream_id, child);
    await this.#spawned(pid);
    rec.pid = pid;
    rec.pid_generation = rec.generation;
    rec.start_time = procStat(pid)?.startTime ?? null;
    rec.exit = null;
    rec.error = null;
    this.#persist(rec);
    return succeeded;
  }

  /** SIGTERM, then SIGKILL after the grace period; idempotent. */
  async #stop(rec: StreamRecord): Promise<ExecutionResult> {
    const pid = rec.pid;
    if (pid !== null && isAlive(pid, rec.start_time)) {
      this.#stopping.add(pid);
      this.#logLine(rec, `stopping pid ${pid}`);
      signalGroup(pid, 'SIGTERM');
      if (!(await waitDead(pid, rec.start_time, this.#stopGraceMs))) {
        signalGroup(pid, 'SIGKILL');
        if (!(await waitDead(pid, rec.start_time, 5000))) {
          return failed('temporary', 'stop_failed', `pid ${pid} is still alive after SIGKILL`);
        }
      }
      if (!this.#children.has(rec.stream_id)) this.#stopping.delete(pid); // adopted: no exit event will come
    }
    this.#children.delete(rec.stream_id);
    rec.pid = null;
    rec.start_time = null;
    rec.exit = null;
    this.#persist(rec);
    return succeeded;
  }

  #exitedOnItsOwn(streamId: string, pid: number, code: number | null, signal: string | null): void {
    const rec = this.#records.get(streamId);
    if (!rec || rec.pid !== pid) return;
    rec.pid = null;
    rec.start_time = null;
    rec.exit = { code, signal };
    rec.error =
      code === 0
        ? null
        : code !== null
          ? `exited with code ${code}`
          : signal !== null
            ? `killed by ${signal}`
            : 'exited (status unknown: the process was adopted, not a child of this agent)';
    try {
      this.#persist(rec);
    } catch {
      // Called from an exit event: a write that fails (a full disk) must not bring the agent down. The state is
      // kept here, reported, and written with the stream's next change.
    }
    this.#logLine(rec, `pid ${pid} ${rec.error ?? 'exited with code 0'}`);
    if (this.#closed) return;
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }

  #checkAdopted(): void {
    for (const rec of this.#records.values()) {
      if (rec.pid === null || this.#children.has(rec.stream_id) || this.#stopping.has(rec.pid)) continue;
      if (!isAlive(rec.pid, rec.start_time)) this.#exitedOnItsOwn(rec.stream_id, rec.pid, null, null);
    }
  }

  /**
   * Copy-truncate rotation: the child holds its own O_APPEND descriptor on output.log (it outlives the agent),
   * so the file is copied to output.log.1 and truncated in place, and the child's next write lands at the new
   * end. Lines written between the copy and the truncate are lost.
   */
  #rotateLogs(): void {
    for (const rec of this.#records.values()) {
      const log = join(this.#streamDir(rec.stream_id), 'output.log');
      try {
        const size = statSync(log, { throwIfNoEntry: false })?.size ?? 0;
        if (size <= this.#logMaxBytes) continue;
        copyFileSync(log, `${log}.1`);
        truncateSync(log, 0);
      } catch {
        // A file gone or not writable: this stream's log waits for the next look; the others are still rotated.
      }
    }
  }

  #restartsWithinWindow(rec: StreamRecord): number[] {
    const now = Date.now();
    // A restart stamped ahead of the clock (stepped back since: an RTC-less board before NTP, a VM resumed)
    // counts from now, so it ages out after one window rather than when the clock catches up, maybe years on.
    // Kept so in the record, which the stream's next change writes.
    rec.restarts_at = (rec.restarts_at ?? []).map((at) => Math.min(at, now)).filter((at) => at > now - this.#healthWindowMs);
    return rec.restarts_at;
  }

  /**
   * A stream desired running reports its health (docs/agent-protocol.md, "Health"): running or exited, the
   * exit code of an exit on its own, and its restarts after such exits within the window.
   */
  #observed(rec: StreamRecord): ObservedStream {
    const base = { stream_id: rec.stream_id, generation: rec.generation, last_action_id: rec.last_action_id };
    const restarts = this.#restartsWithinWindow(rec).length;
    if (rec.pid !== null && isAlive(rec.pid, rec.start_time)) {
      const state = (rec.pid_generation ?? rec.generation) === rec.generation ? 'running' : 'starting';
      return { ...base, state, error: null, ...(rec.desired === 'running' && { health: { status: 'running', exit_code: null, restarts } }) };
    }
    if (rec.desired === 'stopped') return { ...base, state: 'stopped', error: null };
    const health = { status: 'exited' as const, exit_code: rec.exit?.code ?? null, restarts };
    if (rec.pid === null && rec.exit?.code === 0) return { ...base, state: 'stopped', error: 'exited on its own with code 0', health };
    return { ...base, state: 'failed', error: rec.pid !== null ? `pid ${rec.pid} is gone` : (rec.error ?? 'not running'), health };
  }

  // ---- configuration ----

  #configApply(command: AttemptCommand): ExecutionResult {
    const target = configToApply(command);
    if (!target.ok) return failed('permanent', 'invalid_spec', target.message);
    const state = this.#readConfigState();
    const currentPath = join(this.#stateDir, 'config', 'current');
    const current = readOptional(currentPath);
    if (state.applied_version === target.version && current === target.content) return succeeded;

    // Captured only when `current` is the applied version's content: after a crash between writing a content and
    // its version, it is not, and a point would put back other content than the version it names.
    const holdsApplied = current !== null && (state.applied_digest ?? sha256(current)) === sha256(current);
    if (command.flags['capture_recovery'] && state.applied_version !== null && holdsApplied) {
      const ref = recoveryRef(command.attempt_id);
      if (!state.recovery_points.some((p) => p.ref === ref)) {
        try {
          writeAtomic(this.#recoveryPath(ref), current);
          state.recovery_points.push({ ref, config_version: state.applied_version, captured_at: new Date().toISOString() });
          for (const old of state.recovery_points.splice(0, Math.max(0, state.recovery_points.length - MAX_RECOVERY_POINTS))) {
            rmSync(this.#recoveryPath(old.ref), { force: true });
          }
          this.#writeConfigState(state);
        } catch (error) {
          return failedWith('temporary', 'capture_failed', `cannot capture a recovery point: ${(error as Error).message}`, 'pre_mutation');
        }
      }
    }
    try {
      writeAtomic(currentPath, target.content);
    } catch (error) {
      return failedWith('temporary', 'config_write_failed', `cannot write the configuration: ${(error as Error).message}`, 'pre_mutation');
    }
    try {
      this.#writeConfigState({ ...state, applied_version: target.version, applied_digest: sha256(target.content) });
    } catch (error) {
      return failedWith('temporary', 'config_state_failed', `configuration written, its version not recorded: ${(error as Error).message}`, 'post_mutation');
    }
    return succeeded;
  }

  #restore(command: AttemptCommand): ExecutionResult {
    const state = this.#readConfigState();
    const selected = selectRecoveryPoint(command, state.recovery_points);
    if (!selected.ok) return failedWith('permanent', selected.code, selected.message, 'pre_mutation');
    const { point } = selected;
    const saved = readOptional(this.#recoveryPath(point.ref));
    if (saved === null) {
      return failedWith('permanent', 'recovery_point_mismatch', `recovery point ${point.ref} has no saved configuration`, 'pre_mutation');
    }
    const currentPath = join(this.#stateDir, 'config', 'current');
    if (state.applied_version === point.config_version && readOptional(currentPath) === saved) return succeeded;
    try {
      writeAtomic(currentPath, saved); // a temporary file renamed over `current`: it moved entirely or not at all
    } catch (error) {
      return failedWith('temporary', 'restore_write_failed', `cannot restore ${point.ref}: ${(error as Error).message}`, 'pre_mutation');
    }
    try {
      this.#writeConfigState({ ...state, applied_version: point.config_version, applied_digest: sha256(saved) });
    } catch (error) {
      return failedWith('temporary', 'config_state_failed', `restored ${point.ref}, its version not recorded: ${(error as Error).message}`, 'post_mutation');
    }
    return succeeded;
  }

  /**
   * The applied version and recovery points. A state file that is not readable JSON (a disk fault) is set aside,
   * not read at every report: the node holds no known configuration, and says so, until the next apply.
   */
  #readConfigState(): ConfigState {
    const parsed = this.#readState<Partial<ConfigState>>(join(this.#stateDir, 'config', 'state.json'), 'the node reports no configuration until the next apply');
    return { applied_version: parsed?.applied_version ?? null, applied_digest: parsed?.applied_digest ?? null, recovery_points: parsed?.recovery_points ?? [] };
  }

  /**
   * A state file's object, or null when there is none; one that is not a JSON object is renamed to
   * `<file>.unreadable` (replacing an earlier one), with an `error` line saying what follows, and is null too.
   */
  #readState<T>(path: string, consequence: string): T | null {
    const text = readOptional(path);
    if (text === null) return null;
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as T;
      throw new Error('not a JSON object');
    } catch (error) {
      try {
        renameSync(path, `${path}.unreadable`);
        this.#log('error', `state file unreadable, set aside as ${path}.unreadable: ${consequence}`, { path, ...errorFields(error) });
      } catch (renaming) {
        // A read-only disk: said again at each read, which is what it costs until the disk is writable.
        this.#log('error', `state file unreadable, and it cannot be set aside (${(renaming as Error).message}): ${consequence}`, { path, ...errorFields(error) });
      }
      return null;
    }
  }

  #writeConfigState(state: ConfigState): void {
    writeAtomic(join(this.#stateDir, 'config', 'state.json'), JSON.stringify(state, null, 2));
  }

  #recoveryPath(ref: string): string {
    return join(this.#stateDir, 'config', 'recovery', safeName(ref));
  }

  // ---- persistence ----

  #streamDir(streamId: string): string {
    return join(this.#stateDir, 'streams', safeName(streamId));
  }

  #persist(rec: StreamRecord): void {
    const dir = this.#streamDir(rec.stream_id);
    mkdirSync(dir, { recursive: true });
    writeAtomic(join(dir, 'state.json'), JSON.stringify(rec, null, 2));
  }

  #logLine(rec: StreamRecord, line: string): void {
    try {
      appendFileSync(join(this.#streamDir(rec.stream_id), 'output.log'), `[${new Date().toISOString()}] fleetplane: ${line}\n`);
    } catch {
      // the log is best effort
    }
  }

  /** Reads every stream's state; re-adopts children still alive; a child that died meanwhile is reported failed. */
  #load(): void {
    for (const dir of [join(this.#stateDir, 'config'), join(this.#stateDir, 'config', 'recovery')]) removeTemporaries(dir);
    for (const name of readdirSync(join(this.#stateDir, 'streams'))) {
      removeTemporaries(join(this.#stateDir, 'streams', name));
      const rec = this.#readState<StreamRecord>(join(this.#stateDir, 'streams', name, 'state.json'), 'the stream is not reported until an attempt for it comes');
      if (rec === null || typeof rec.stream_id !== 'string') continue;
      this.#records.set(rec.stream_id, rec);
      if (rec.pid !== null && !isAlive(rec.pid, rec.start_time)) {
        const pid = rec.pid;
        rec.pid = null;
        rec.start_time = null;
        if (rec.desired === 'running') {
          rec.exit = { code: null, signal: null };
          rec.error = 'exited while the agent was not running (exit status unknown)';
        }
        this.#persist(rec);
        this.#logLine(rec, `pid ${pid} was gone when the agent started`);
      }
    }
  }

  /**
   * Finds the children an earlier agent on this state dir started and no state names (killed between the spawn
   * and the save of the pid, or a state file set aside as unreadable): left alone, such a stream is reported
   * failed or not at all, and its next start runs a second copy. One that is what its stream's state wants
   * (desired running, at its generation, no process) is adopted; any other is stopped, as the executor started it.
   */
  #claimUnsaved(): void {
    for (const found of childrenOf(this.#stateDirName)) {
      const rec = this.#records.get(found.streamId);
      if (rec?.pid === found.pid && (rec.start_time === null || rec.start_time === found.startTime)) continue;
      const what = `pid ${found.pid} of stream ${found.streamId} at generation ${found.generation}, started by an earlier agent`;
      const fields = { stream_id: found.streamId, pid: found.pid, generation: found.generation };
      if (rec !== undefined && rec.desired === 'running' && rec.pid === null && rec.generation === found.generation) {
        this.#adoptUnsaved(rec, found);
        this.#log('warn', `adopted ${what} that stopped before saving its pid`, fields);
        this.#logLine(rec, `adopted ${what} that stopped before saving its pid`);
        continue;
      }
      const why = rec === undefined ? 'no readable state names its stream' : `its stream's state wants it ${rec.desired} at generation ${rec.generation}${rec.pid === null ? '' : ` as pid ${rec.pid}`}`;
      this.#log('warn', `stopping ${what}: ${why}`, fields);
      if (rec !== undefined) this.#logLine(rec, `stopping ${what}: ${why}`);
      void stopFound(found, this.#stopGraceMs);
    }
  }

  #adoptUnsaved(rec: StreamRecord, found: FoundChild): void {
    rec.pid = found.pid;
    rec.pid_generation = found.generation;
    rec.start_time = found.startTime;
    rec.exit = null;
    rec.error = null;
    this.#persist(rec);
  }
}

/** SIGTERM to a found child's group, then SIGKILL after the grace period if it is still the same process. */
async function stopFound(found: FoundChild, graceMs: number): Promise<void> {
  signalGroup(found.pid, 'SIGTERM');
  if (!(await waitDead(found.pid, found.startTime, graceMs))) signalGroup(found.pid, 'SIGKILL');
}

/**
 * Removes the temporary files a write cut short by a crash left (`writeAtomic`'s, named by the writer's pid):
 * one agent writes a state dir, and it has not written yet.
 */
function removeTemporaries(dir: string): void {
  for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
}

// ---- helpers ----

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A stream id or ref as a file name: itself when plainly safe, else a digest (ids live inside state.json). */
function safeName(id: string): string {
  return /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(id) ? id : `~${createHash('sha256').update(id).digest('hex')}`;
}

function readOptional(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Writes a temporary file, syncs it and renames it over `path`: readers see the old or the new content. */
function writeAtomic(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      // Not writeSync: one write(2) may take only part of the content (a nearly full disk) and say so, and a
      // part renamed over `path` would be a configuration cut short. writeFileSync writes on or throws.
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

const hasProc = existsSync('/proc/self/stat');

/** Alive: signal 0 reaches it, it is not a zombie, and (where known) it started when our child did. */
function isAlive(pid: number, startTime: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false; // ESRCH: gone; EPERM: another user's process, so not our child
  }
  if (!hasProc) return true;
  const stat = procStat(pid);
  if (stat === null || stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === null || stat.startTime === startTime;
}

async function waitDead(pid: number, startTime: string | null, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(pid, startTime)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** Children are group leaders (spawned detached): signal the group so their own children go too. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Looks the command up as spawn will (PATH of the child's environment), so a typo fails before anything stops. */
function findExecutable(command: string, cwd: string, path: string | undefined): 'found' | 'not_found' | 'not_executable' {
  const candidates = command.includes('/') ? [resolve(cwd, command)] : (path ?? '').split(delimiter).filter(Boolean).map((dir) => resolve(cwd, dir, command));
  let exists = false;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    exists = true;
    try {
      accessSync(candidate, constants.X_OK);
      return 'found';
    } catch {
      // exists, not executable: keep looking
    }
  }
  return exists ? 'not_executable' : 'not_found';
}
