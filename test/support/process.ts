import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(__dirname, '../../packages/hub/src/main.ts');

export interface HubProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Sends the signal and resolves with the exit code (null when killed by the signal). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** `npm start` as a user runs it: the Hub as a separate process, ready once it prints its URL. */
export async function startHubProcess(env: Record<string, string>): Promise<HubProcess> {
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [MAIN], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Fleetplane Hub ready on (\S+)/.exec(output);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`hub exited with ${code} before it was ready:\n${output}`)));
  });
  return {
    child,
    url,
    output: () => output,
    stop: (signal) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
