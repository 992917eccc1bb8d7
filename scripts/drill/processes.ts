import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/**
 * A process the drill started, with its output in a file of its own. The drill stops only these, by their pid:
 * SIGTERM, then SIGKILL if it has not exited within `graceMs`.
 */
export class Started {
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | string>;
  readonly log: string;
  readonly name: string;

  constructor(name: string, args: string[], options: { cwd: string; env: Record<string, string>; log: string }) {
    this.name = name;
    this.log = options.log;
    const out = openSync(options.log, 'a');
    // A group of its own: a terminal's Ctrl-C reaches the drill alone, which then stops what it started in order.
    this.#child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', out, out], detached: true });
    closeSync(out);
    this.#exited = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve(signal ?? code ?? 'unknown')));
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Its exit code (or signal), once it exits. */
  exited(): Promise<number | string> {
    return this.#exited;
  }

  async stop(graceMs = 20_000): Promise<number | string> {
    if (!this.running) return this.#exited;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    const how = await this.#exited;
    clearTimeout(timer);
    return how;
  }

  /** Its output's JSON lines (others skipped). */
  lines(): Array<Record<string, unknown>> {
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          const parsed = JSON.parse(line) as unknown;
          return parsed && typeof parsed === 'object' ? [parsed as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      });
  }

  text(): string {
    return readFileSync(this.log, 'utf8');
  }
}

/** Runs a command to its end; its exit code and output. */
export async function runToEnd(name: string, args: string[], options: { cwd: string; env: Record<string, string>; log: string }): Promise<{ code: number | string; output: string }> {
  const child = new Started(name, args, options);
  const code = await child.exited();
  return { code, output: child.text() };
}
