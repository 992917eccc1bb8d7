import { randomUUID } from 'node:crypto';
import type { RemovedStream } from '@fleetplane/core';
import { ControlApi, startControlServer, type ControlServer, type ControlTls } from './control-server.ts';
import type { AttemptCommand, ExecutionResult, Executor } from './executors/executor.ts';
import { failedWith, isConfigurable } from './executors/common.ts';
import { HubClient, HubError, ReportTooLarge } from './hub-client.ts';
import { Journal } from './journal.ts';
import { lastingRefusal } from './refusal.ts';
import { errorFields, type Level, type Log } from './log.ts';

export interface AgentOptions {
  hub: string;
  /** The CA (PEM) the Hub's certificate is verified against over HTTPS; null: the system's CAs. */
  hubCa?: string | null;
  nodeId: string;
  token: string;
  stateDir: string;
  executor: Executor;
  capabilities?: string[];
  dataAddress?: string | null;
  controlAddress?: string | null;
  /**
   * Serve the control endpoint (control-server.ts) on this host and port (0: any free port) and register
   * its address as the node's `control_address`, so the Hub may push attempts (`node_proxy`). `advertise`
   * overrides the registered address (e.g. when listening on 0.0.0.0). With `tls` it serves HTTPS and
   * registers `https://host:port`.
   */
  control?: { host: string; port: number; advertise?: string | null; tls?: ControlTls | null } | null;
  /** SHA-256 (hex) of this node's hub-to-node credential (`node_proxy`): the one credential besides the agent's own it accepts. */
  hubCredentialSha256?: string | null;
  /** Full reports at least this often, and right after every change. */
  reportEveryMs?: number;
  /** Seconds each long poll waits for attempts. */
  pollSeconds?: number;
  /** How long any call to the Hub may take (a long poll: this beyond its wait). */
  hubTimeoutMs?: number;
  /**
   * For this long after the start, a token the Hub does not know (401) is a failure retried like any other: with
   * several Hubs, a credential just added is known to the ones reloaded already and not yet to the others.
   */
  unknownTokenGraceMs?: number;
  /** Where the agent logs (log.ts: `jsonLog` writes the Hub's JSON format); silent without one. */
  log?: Log;
}

type Settings = Required<Omit<AgentOptions, 'log' | 'control'>> & Pick<AgentOptions, 'log' | 'control'>;

export const AGENT_VERSION = '0.1.0';

/**
 * The node agent: registers with a new boot id at every start, sends full reports (periodically and after
 * every change, with a sequence that grows within the boot), and takes attempts through its long poll
 * (the `pilot_tunnel` channel) and, when it serves a control endpoint, from the Hub directly (`node_proxy`),
 * executing each at most once by attempt id. Configuration attempts from the long poll are handed to the
 * control endpoint's handler with the agent's loopback token, so both channels pass one gate (SPEC I1).
 */
/** How often an agent sends its full report by default (`reportEveryMs`, `--report-every-ms`). */
export const REPORT_EVERY_MS = 10_000;

/** A failed poll is tried again after this, doubling with each failure in a row up to `POLL_RETRY_MAX_MS`. */
export const POLL_RETRY_MS = 1000;
export const POLL_RETRY_MAX_MS = 10_000;
/** A retry's delay is drawn from [delay, delay × (1 + RETRY_JITTER)] (retryDelay). */
export const RETRY_JITTER = 0.5;

/** How long after its start the agent takes a 401 for a Hub not yet reloaded (`unknownTokenGraceMs`). */
export const UNKNOWN_TOKEN_GRACE_MS = 60_000;

export class Agent {
  readonly bootId = randomUUID();
  readonly #startedAt = performance.now();
  readonly #options: Settings;
  readonly #client: HubClient;
  readonly #journal: Journal;
  readonly #control: ControlApi;
  #server: ControlServer | null = null;
  #seq = 0;
  #stopped = false;
  #poll = new AbortController();
  #reportTimer: NodeJS.Timeout | null = null;
  #reporting: Promise<void> = Promise.resolve();
  /** The report queued behind the one on its way, not yet observing the node; null when there is none. */
  #waitingReport: Promise<void> | null = null;
  #loop: Promise<void> = Promise.resolve();

  constructor(options: AgentOptions) {
    this.#options = {
      capabilities: [],
      dataAddress: null,
      controlAddress: null,
      hubCredentialSha256: null,
      hubCa: null,
      reportEveryMs: REPORT_EVERY_MS,
      pollSeconds: 25,
      hubTimeoutMs: 10_000,
      unknownTokenGraceMs: UNKNOWN_TOKEN_GRACE_MS,
      ...options,
    } as Settings;
    this.#client = new HubClient(options.hub, options.token, this.#options.hubTimeoutMs, this.#options.hubCa);
    this.#journal = new Journal(options.stateDir);
    this.#control = new ControlApi({
      target: { execute: (command) => this.execute(command) },
      hubCredentialSha256: this.#options.hubCredentialSha256,
      log: (level, message, fields) => this.#log(level, message, fields),
    });
    options.executor.onChange(() => void this.report());
  }

  /** The registered control endpoint address (`host:port`, or `https://host:port`), or null without one. */
  get controlAddress(): string | null {
    return this.#options.controlAddress;
  }

  /** Where the control endpoint listens, registered or not (null when it is not served). */
  get controlEndpoint(): string | null {
    return this.#server?.address ?? null;
  }

  /** The control endpoint's handler (served over HTTP when `control` is set). */
  get control(): ControlApi {
    return this.#control;
  }

  // Not Promise.withResolvers: the agent runs on Node 20 (which lacks it), the Hub on Node 24.
  #resolveRefused!: (refusal: HubError) => void;
  readonly #refused = new Promise<HubError>((resolve) => (this.#resolveRefused = resolve));
  #refusal: HubError | null = null;

  /**
   * Resolves, once the agent has stopped, with the Hub's refusal that retrying cannot change: `node_retired`
   * (an operator retired this node), or a token that is not this node's agent credential (`unauthenticated`,
   * `forbidden`, `node_mismatch`). The agent neither retries nor reports then: each refusal is audited, and a
   * loop would fill the log while the node looks merely offline.
   */
  get refused(): Promise<HubError> {
    return this.#refused;
  }

  /** True, and the agent stops, when `e` is a refusal retrying cannot change. */
  #whenRefused(e: unknown): boolean {
    if (!(e instanceof HubError)) return false;
    const line = lastingRefusal(e);
    if (line === null) return false;
    // Retried as a failure for a while: a Hub behind the same address may not have reloaded the credential yet.
    if (e.code === 'unauthenticated' && performance.now() - this.#startedAt < this.#options.unknownTokenGraceMs) return false;
    if (this.#refusal === null) {
      this.#refusal = e;
      this.#log('error', line, errorFields(e));
      void this.stop().then(() => this.#resolveRefused(e));
    }
    return true;
  }

  /** Registers, reports, and starts polling; false when the Hub refused the agent for good instead (`refused`). */
  async start(): Promise<boolean> {
    const control = this.#options.control;
    if (control) {
      this.#server = await startControlServer(this.#control, control.host, control.port, control.tls ?? null);
      // Registered only when the endpoint takes the Hub's credential: a Hub holding the token pushes to every
      // registered address, and a node refusing each push would leave every attempt ambiguous. Without it,
      // attempts come by long poll.
      const advertised = control.advertise && control.tls ? `https://${control.advertise}` : control.advertise;
      if (this.#options.hubCredentialSha256 !== null) this.#options.controlAddress = advertised ?? this.#server.address;
    }
    const registered = this.#retrying('register', () => this.#register());
    if (!(await registered.then(() => true, (e: unknown) => (this.#refusal ? false : Promise.reject(e))))) return false;
    await this.report();
    this.#reportTimer = setInterval(() => void this.report(), this.#options.reportEveryMs);
    this.#loop = this.#pollLoop();
    return true;
  }

  #register() {
    return this.#client.register({
      node_id: this.#options.nodeId,
      boot_id: this.bootId,
      agent_version: AGENT_VERSION,
      capabilities: this.#options.capabilities,
      data_address: this.#options.dataAddress,
      control_address: this.#options.controlAddress,
    });
  }

  /**
   * The Hub refused a report for want of this boot's registration, and the protocol's answer is to register
   * again. A stale report: this agent's reports never go back in sequence, so another boot of the node
   * registered since (another agent with this node id; two such agents take it from each other at every
   * report, each saying so). No registration at all: the Hub's database no longer holds the node (restored
   * from a backup taken before it joined, or a new one behind the same address).
   */
  async #registerAgain(why: 'stale_report' | 'node_not_registered'): Promise<void> {
    const line =
      why === 'stale_report'
        ? 'report refused: another boot of this node registered since (another agent with this node id?); registering again'
        : "report refused: the Hub has no registration of this node (its database restored from before the node joined?); registering again";
    this.#log('warn', line, { boot_id: this.bootId, report_seq: this.#seq });
    try {
      await this.#register();
    } catch (e) {
      // The next report is refused again and tries again.
      if (!this.#whenRefused(e)) this.#log('warn', 'register failed', errorFields(e));
    }
  }

  /**
   * Sends a full report now; reports never overlap, so their sequence numbers arrive in order. A report already
   * waiting for its turn answers this call too: it observes the node after it. So a Hub slower than the report
   * period (or a stream changing faster) holds one report waiting, not one per period for as long as it lasts.
   */
  report(): Promise<void> {
    if (this.#waitingReport) return this.#waitingReport;
    const next = this.#reporting.then(async () => {
      this.#waitingReport = null;
      if (this.#stopped) return;
      try {
        const executor = this.#options.executor;
        const streams = await executor.observe();
        // The applied configuration and the recovery points held, when the executor manages configuration.
        const configuration = isConfigurable(executor) ? await executor.configuration() : undefined;
        this.#seq += 1;
        const { accepted } = await this.#client.report({ node_id: this.#options.nodeId, boot_id: this.bootId, report_seq: this.#seq, full: true, streams, ...(configuration ? { configuration } : {}) });
        // Reported again at the next period, or change, not at once: two agents sharing a node id would
        // otherwise take it from each other as fast as the Hub answers.
        if (!accepted) await this.#registerAgain('stale_report');
      } catch (e) {
        if (e instanceof HubError && e.status === 409 && e.code === 'node_not_registered') await this.#registerAgain('node_not_registered');
        // Not a passing failure: every report of this size is refused, and the Hub shows the node offline.
        else if (e instanceof ReportTooLarge) this.#log('error', `${e.message}: the Hub shows this node offline until it reports fewer streams or shorter error texts`, { streams: e.streams, bytes: e.bytes });
        // The next report (periodic, or after the next change) tries again with a newer sequence.
        else if (!this.#whenRefused(e)) this.#log('warn', 'report failed', errorFields(e));
      }
    });
    this.#waitingReport = next;
    this.#reporting = next;
    return next;
  }

  /**
   * Executes one attempt at most once: a repeat is answered from the journal. Resolves with the result, or
   * null when it is not known here (the attempt was started by an earlier run or another delivery, or the
   * executor lost its outcome).
   */
  async execute(command: AttemptCommand): Promise<ExecutionResult | null> {
    const entry = this.#journal.entry(command.attempt_id);
    if (entry.state === 'started') {
      this.#log('warn', 'attempt already started (before a restart, or by another delivery): not running it again', { attempt_id: command.attempt_id });
      return null;
    }
    const result = entry.state === 'finished' ? entry.result : await this.#run(command);
    if (result === null) return null;
    await this.#client.result(command.attempt_id, command.generation, result).catch((e: unknown) => {
      // The Hub answers later results from the node's reports; a lost result is what ambiguity is for.
      if (!this.#whenRefused(e)) this.#log('warn', 'result not delivered', { attempt_id: command.attempt_id, ...errorFields(e) });
    });
    await this.report();
    return result;
  }

  /**
   * Runs a new attempt, its start recorded in the journal before and its result after; null when its outcome
   * is not known. An attempt whose start cannot be recorded (a full or read-only state dir) is not run, as a
   * restart could run it again: its result is a temporary failure that changed nothing, which the Hub tries
   * again with a new attempt.
   */
  async #run(command: AttemptCommand): Promise<ExecutionResult | null> {
    try {
      this.#journal.begin(command.attempt_id);
    } catch (e) {
      this.#log('error', 'attempt not run: the journal cannot record its start', { ...attemptFields(command), ...errorFields(e) });
      const message = `cannot record the attempt's start in ${this.#journal.file}, so it was not run: ${(e as Error).message}`;
      return failedWith('temporary', 'journal_unwritable', message, 'pre_mutation');
    }
    const started = performance.now();
    let result: ExecutionResult;
    try {
      result = await this.#options.executor.apply(command);
    } catch (e) {
      // The executor cannot say what happened (its result was lost, it crashed): post nothing, and let the
      // report tell the Hub, which holds the attempt as ambiguous meanwhile.
      this.#log('error', 'attempt outcome unknown', { ...attemptFields(command), ...errorFields(e) });
      await this.report();
      return null;
    }
    try {
      this.#journal.finish(command.attempt_id, result);
    } catch (e) {
      // Its start is recorded, so it never runs again; the result is known and goes to the Hub all the same.
      this.#log('warn', 'attempt result not recorded in the journal', { attempt_id: command.attempt_id, ...errorFields(e) });
    }
    this.#log(result.outcome === 'succeeded' ? 'info' : 'warn', 'attempt finished', {
      ...attemptFields(command),
      outcome: result.outcome,
      failure_class: result.failure_class,
      code: result.code,
      mutation: result.mutation,
      duration_ms: Math.round(performance.now() - started),
    });
    return result;
  }

  async #pollLoop(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        const { attempts, removedStreams } = await this.#client.attempts(this.#options.pollSeconds, this.#poll.signal);
        if (failures > 0) this.#log('info', 'attempt poll answered again', { failed_polls: failures });
        failures = 0;
        // All at once, as pushes are: one slow attempt (a stop waiting out its grace period) must not hold the
        // others past their leases, which all began with this answer. One stream's attempts, and configuration
        // attempts, still run in order: the executor holds each in line in the order they are handed to it.
        await Promise.all(attempts.map((attempt) => this.#fromPull(attempt)));
        await this.#forget(removedStreams);
      } catch (e) {
        if (this.#stopped || this.#whenRefused(e)) return;
        failures += 1;
        // Doubling while the Hub stays away, so a fleet does not poll a Hub that is coming back every second; at
        // most one report period, so attempts flow soon after it is back.
        const delay = retryDelay(e, Math.min(POLL_RETRY_MS * 2 ** (failures - 1), POLL_RETRY_MAX_MS));
        this.#log('warn', 'attempt poll failed', { ...errorFields(e), retry_in_ms: delay });
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  /** Forgets the streams the Hub removed, then reports without them; one that cannot go is tried at the next poll. */
  async #forget(removed: readonly RemovedStream[]): Promise<void> {
    let forgot = false;
    for (const { stream_id, generation } of removed) {
      if (this.#stopped) return;
      try {
        if (!(await this.#options.executor.forget(stream_id, generation))) continue;
        forgot = true;
        this.#log('info', 'removed stream forgotten', { stream_id, generation });
      } catch (e) {
        this.#log('warn', 'removed stream not forgotten', { stream_id, generation, ...errorFields(e) });
      }
    }
    if (forgot) await this.report();
  }

  /**
   * An attempt from the long poll. Configuration attempts go through the control endpoint's handler as
   * `pilot_tunnel` (same gate and flag handling as a `node_proxy` push); the others are executed here.
   */
  async #fromPull(attempt: AttemptCommand): Promise<void> {
    if (attempt.operation !== 'config_apply' && attempt.operation !== 'restore') {
      this.#log('info', 'attempt received', { ...attemptFields(attempt), channel: 'pilot_tunnel', path: 'poll' });
      await this.execute(attempt);
      return;
    }
    const answer = await this.#control.forward(attempt);
    if (answer.status >= 400) this.#log('warn', 'attempt refused by the control handler', { attempt_id: attempt.attempt_id, status: answer.status, answer: answer.body });
  }

  async #retrying<T>(what: string, f: () => Promise<T>): Promise<T> {
    for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await f();
      } catch (e) {
        if (this.#stopped || this.#whenRefused(e)) throw e;
        const wait = retryDelay(e, delay);
        this.#log('warn', `${what} failed, retrying`, { ...errorFields(e), retry_in_ms: wait });
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  #log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
    this.#options.log?.(level, message, { node_id: this.#options.nodeId, ...fields });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#reportTimer) clearInterval(this.#reportTimer);
    this.#poll.abort();
    await this.#server?.close();
    await this.#loop.catch(() => {});
    await this.#control.drain();
    await this.#reporting.catch(() => {});
  }
}

/**
 * The delay before asking again: `backoff`, or longer when the Hub asked for it (`Retry-After` on a 503 or a 429
 * `overloaded`), and up to half as long again at random: a fleet that failed together (a Hub restarted, a network
 * blip, a Hub turning requests away) asks again spread out, not all in the same second.
 */
function retryDelay(e: unknown, backoff: number): number {
  const delay = Math.max(backoff, e instanceof HubError ? (e.retryAfterMs ?? 0) : 0);
  return Math.round(delay * (1 + RETRY_JITTER * Math.random()));
}

/** What identifies an attempt in a log line: its id, operation, and the stream or configuration version it is for. */
function attemptFields(command: AttemptCommand): Record<string, unknown> {
  return {
    attempt_id: command.attempt_id,
    intent_id: command.intent_id,
    operation: command.operation,
    ...(command.stream_id !== null ? { stream_id: command.stream_id } : {}),
    ...(command.config_version !== null ? { config_version: command.config_version } : {}),
    generation: command.generation,
  };
}

