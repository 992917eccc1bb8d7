import { randomUUID } from 'node:crypto';
import type { AttemptCommand, Executor } from './executors/executor.ts';
import { HubClient } from './hub-client.ts';
import { Journal } from './journal.ts';

export interface AgentOptions {
  hub: string;
  nodeId: string;
  token: string;
  stateDir: string;
  executor: Executor;
  capabilities?: string[];
  dataAddress?: string | null;
  controlAddress?: string | null;
  /** Full reports at least this often, and right after every change. */
  reportEveryMs?: number;
  /** Seconds each long poll waits for attempts. */
  pollSeconds?: number;
  log?: (message: string, fields?: Record<string, unknown>) => void;
}

type Settings = Required<Omit<AgentOptions, 'log'>> & Pick<AgentOptions, 'log'>;

export const AGENT_VERSION = '0.1.0';

/**
 * The node agent: registers with a new boot id at every start, sends full reports (periodically and after
 * every change, with a sequence that grows within the boot), and takes attempts through its long poll
 * (the `pilot_tunnel` channel), executing each at most once by attempt id.
 */
export class Agent {
  readonly bootId = randomUUID();
  readonly #options: Settings;
  readonly #client: HubClient;
  readonly #journal: Journal;
  #seq = 0;
  #stopped = false;
  #poll = new AbortController();
  #reportTimer: NodeJS.Timeout | null = null;
  #reporting: Promise<void> = Promise.resolve();
  #loop: Promise<void> = Promise.resolve();

  constructor(options: AgentOptions) {
    this.#options = {
      capabilities: [],
      dataAddress: null,
      controlAddress: null,
      reportEveryMs: 10_000,
      pollSeconds: 25,
      ...options,
    } as Settings;
    this.#client = new HubClient(options.hub, options.token);
    this.#journal = new Journal(options.stateDir);
    options.executor.onChange(() => void this.report());
  }

  async start(): Promise<void> {
    await this.#retrying('register', () =>
      this.#client.register({
        node_id: this.#options.nodeId,
        boot_id: this.bootId,
        agent_version: AGENT_VERSION,
        capabilities: this.#options.capabilities,
        data_address: this.#options.dataAddress,
        control_address: this.#options.controlAddress,
      }),
    );
    await this.report();
    this.#reportTimer = setInterval(() => void this.report(), this.#options.reportEveryMs);
    this.#loop = this.#pollLoop();
  }

  /** Sends a full report now; reports never overlap, so their sequence numbers arrive in order. */
  report(): Promise<void> {
    this.#reporting = this.#reporting.then(async () => {
      if (this.#stopped) return;
      try {
        const streams = await this.#options.executor.observe();
        this.#seq += 1;
        await this.#client.report({ node_id: this.#options.nodeId, boot_id: this.bootId, report_seq: this.#seq, full: true, streams });
      } catch (e) {
        // The next report (periodic, or after the next change) tries again with a newer sequence.
        this.#log('report failed', { error: String(e) });
      }
    });
    return this.#reporting;
  }

  /** Executes one attempt at most once: a repeat is answered from the journal. */
  async execute(command: AttemptCommand): Promise<void> {
    const entry = this.#journal.entry(command.attempt_id);
    if (entry.state === 'started') {
      this.#log('attempt already started before a restart: not running it again', { attempt_id: command.attempt_id });
      return;
    }
    let result;
    if (entry.state === 'finished') {
      result = entry.result;
    } else {
      this.#journal.begin(command.attempt_id);
      try {
        result = await this.#options.executor.apply(command);
      } catch (e) {
        // The executor cannot say what happened (its result was lost, it crashed): post nothing, and let the
        // report tell the Hub, which holds the attempt as ambiguous meanwhile.
        this.#log('attempt outcome unknown', { attempt_id: command.attempt_id, error: String(e) });
        await this.report();
        return;
      }
      this.#journal.finish(command.attempt_id, result);
    }
    await this.#client.result(command.attempt_id, command.generation, result).catch((e: unknown) => {
      // The Hub answers later results from the node's reports; a lost result is what ambiguity is for.
      this.#log('result not delivered', { attempt_id: command.attempt_id, error: String(e) });
    });
    await this.report();
  }

  async #pollLoop(): Promise<void> {
    while (!this.#stopped) {
      try {
        const attempts = await this.#client.attempts(this.#options.pollSeconds, this.#poll.signal);
        for (const attempt of attempts) {
          if (this.#stopped) break;
          await this.execute(attempt);
        }
      } catch (e) {
        if (this.#stopped) return;
        this.#log('attempt poll failed', { error: String(e) });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  async #retrying<T>(what: string, f: () => Promise<T>): Promise<T> {
    for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await f();
      } catch (e) {
        if (this.#stopped) throw e;
        this.#log(`${what} failed, retrying`, { error: String(e) });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  #log(message: string, fields: Record<string, unknown> = {}): void {
    this.#options.log?.(message, { node_id: this.#options.nodeId, ...fields });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reportTimer) clearInterval(this.#reportTimer);
    this.#poll.abort();
    await this.#loop.catch(() => {});
    await this.#reporting.catch(() => {});
  }
}
