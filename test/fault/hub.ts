import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { testConfig } from '../support/hub.ts';
import { startConfiguredHub, type HubProcess } from '../support/process.ts';

/**
 * The Hub as a separate process (`npm start`) on one database and one port, killed with SIGKILL and started
 * again there, as often as asked. The same port lets agents and operators find it again without being told.
 */
export class HubUnderFire {
  readonly url: string;
  /** Each SIGKILL: while the Hub was starting (before it said it was ready), or while it served. */
  readonly kills: Array<'starting' | 'serving'> = [];
  readonly #options: { databaseUrl: string; dir: string; port: number; nodes: number };
  #hub: HubProcess | null = null;

  constructor(options: { databaseUrl: string; dir: string; port: number; nodes: number }) {
    this.url = `http://127.0.0.1:${options.port}`;
    this.#options = options;
  }

  /** The Hub's process, on the run's database, data directory and port. */
  #startHub(spawned?: (child: ChildProcess) => void): Promise<HubProcess> {
    // Configuration mode: lifecycle and configuration attempts are both dispatched (SPEC B2). A lease far
    // longer than a simulated execution, so that only a kill or an injected fault makes one ambiguous.
    const config = testConfig(this.#options.nodes, { mode: 'configuration', lease_ms: 3000, retry_base_ms: 200, retry_max_ms: 2000 });
    const { databaseUrl, dir, port } = this.#options;
    return startConfiguredHub({ databaseUrl, dir, port, config: config.file, ...(spawned ? { spawned } : {}) });
  }

  async start(): Promise<void> {
    this.#hub = await this.#startHub();
  }

  /**
   * SIGKILL after the Hub has served for `serveMs` and then, when given, once `strike` resolves (or 5 s
   * later); then `downMs` with no Hub at all.
   */
  async kill(serveMs: number, downMs: number, strike?: () => Promise<void>): Promise<void> {
    await sleep(serveMs);
    if (strike) await Promise.race([strike(), sleep(5000)]);
    const code = await this.#hub!.stop('SIGKILL');
    if (code !== null) throw new Error(`the Hub had exited on its own with code ${code}:\n${this.#hub!.output()}`);
    this.#hub = null;
    this.kills.push('serving');
    await sleep(downMs);
  }

  /** Starts a Hub and kills it with SIGKILL after `afterMs`, ready or not (mostly: while it migrates and boots). */
  async killWhileStarting(afterMs: number): Promise<void> {
    let spawned: ChildProcess | null = null;
    const outcome = this.#startHub((c) => (spawned = c)).then(
      () => null,
      (e: unknown) => e,
    );
    await Promise.race([sleep(afterMs), outcome]);
    const child = spawned! as ChildProcess;
    if (child.exitCode !== null) throw await outcome; // it ended on its own: the Hub failed to start
    if (child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    const wasReady = (await outcome) === null;
    this.kills.push(wasReady ? 'serving' : 'starting');
  }

  /** Stops the Hub as an operator does (SIGTERM), after the run; answers its exit code. */
  async stop(): Promise<number | null> {
    const code = (await this.#hub?.stop('SIGTERM')) ?? null;
    this.#hub = null;
    return code;
  }

  /** Kills whatever runs, when a failed run leaves it behind. */
  async abandon(): Promise<void> {
    await this.#hub?.stop('SIGKILL');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
