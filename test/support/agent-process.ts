import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const CLI = join(__dirname, '../../packages/agent/src/cli.ts');

export interface AgentProcess {
  child: ChildProcess;
  output(): string;
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** `npm run agent -- …` as a separate process; ready once it logs that it started. */
export async function startAgentProcess(args: Record<string, string>): Promise<AgentProcess> {
  const argv = Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]);
  const child = spawn(process.execPath, [CLI, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"agent started"')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`agent exited with ${code} before it started:\n${output}`)));
  });
  return {
    child,
    output: () => output,
    stop: (signal) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
