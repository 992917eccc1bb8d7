import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code (null when killed by the signal). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Runs a TypeScript entry point on this Node as a separate process; resolves once its output matches `ready`. */
export async function startProcess(script: string, argv: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<RunningProcess & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [script, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = ready.exec(output);
      if (m) resolve(m);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready:\n${output}`)));
  });
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

/** `npm start` as a user runs it: the Hub as a separate process, ready once it prints its URL. */
export async function startHubProcess(env: Record<string, string>): Promise<HubProcess> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const started = await startProcess(join(__dirname, '../../packages/hub/src/main.ts'), [], { ...inherited, ...env }, /Fleetplane Hub ready on (\S+)/);
  return { ...started, url: started.match[1]! };
}

export type AgentProcess = RunningProcess;

/** `npm run agent -- …` as a separate process; ready once it logs that it started. */
export function startAgentProcess(args: Record<string, string>): Promise<AgentProcess> {
  const argv = Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]);
  return startProcess(join(__dirname, '../../packages/agent/src/cli.ts'), argv, process.env, /"agent started"/);
}
