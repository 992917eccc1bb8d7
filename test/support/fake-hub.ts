import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AttemptCommand, ExecutionResult } from '../../packages/agent/src/executors/executor.ts';
import type { RemovedStream } from '@fleetplane/core';

/** The Hub side of the agent protocol, in memory: attempts to hand out by long poll, results received. */
export class FakeHub {
  readonly results = new Map<string, ExecutionResult & { generation: number }>();
  readonly pending: AttemptCommand[] = [];
  /** The `report_seq` of every report answered, in arrival order. */
  readonly reportSeqs: number[] = [];
  /** The stream ids of every report answered, in arrival order. */
  readonly reportedStreams: string[][] = [];
  /** What every poll answer names as removed. */
  removedStreams: RemovedStream[] = [];
  /** Reports this says yes to are never answered: a request the network or a stuck Hub swallowed. */
  unanswered: (reportSeq: number) => boolean = () => false;
  /** Set: reports wait for `releaseReports()` before they are answered (a slow Hub); `held` counts those waiting. */
  holdReports = false;
  held = 0;
  #heldAnswers: Array<() => void> = [];
  /** Set: every agent request is refused as a retired node's (403 node_retired); each is counted. */
  retired = false;
  refused = 0;
  /** Registrations answered. */
  registrations = 0;
  /**
   * Answers a request (by its path) in its own way when it returns true: what a proxy, a captive portal or a
   * connection cut in between may hand the agent instead of the Hub's answer.
   */
  intercept: (path: string, res: ServerResponse) => boolean = () => false;
  #wake: Array<() => void> = [];
  #server!: Server;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://hub');
        const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (this.retired) {
          this.refused += 1;
          return send(403, { code: 'node_retired', message: 'node edge-1 was retired', correlation_id: 'c', details: {} });
        }
        if (this.intercept(url.pathname, res)) return;
        if (url.pathname === '/api/v1/agent/register') {
          this.registrations += 1;
          return send(200, {});
        }
        if (url.pathname === '/api/v1/agent/reports') {
          const report = JSON.parse(text) as { report_seq: number; streams: Array<{ stream_id: string }> };
          if (this.unanswered(report.report_seq)) return;
          const answer = () => {
            this.reportSeqs.push(report.report_seq);
            this.reportedStreams.push(report.streams.map((s) => s.stream_id));
            send(202, { accepted: true });
          };
          if (!this.holdReports) return answer();
          this.held += 1;
          this.#heldAnswers.push(answer);
          return;
        }
        if (url.pathname === '/api/v1/agent/attempts') {
          const answer = () => send(200, { attempts: this.pending.splice(0), removed_streams: this.removedStreams });
          if (this.pending.length > 0) return answer();
          const timer = setTimeout(() => {
            this.#wake = this.#wake.filter((w) => w !== wake);
            answer();
          }, Number(url.searchParams.get('wait') ?? 0) * 1000);
          const wake = () => {
            clearTimeout(timer);
            answer();
          };
          this.#wake.push(wake);
          // A poll its agent gave up on (stopped, restarted) must not swallow attempts meant for the next one.
          res.on('close', () => {
            clearTimeout(timer);
            this.#wake = this.#wake.filter((w) => w !== wake);
          });
          return;
        }
        const m = /^\/api\/v1\/agent\/attempts\/([^/]+)\/result$/.exec(url.pathname);
        if (m) {
          this.results.set(decodeURIComponent(m[1]!), JSON.parse(text));
          return send(200, {});
        }
        send(404, { code: 'not_found' });
      });
    });
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Hands attempts to the agent's long poll (the pull channel). */
  deliver(...attempts: AttemptCommand[]): void {
    this.pending.push(...attempts);
    for (const w of this.#wake.splice(0)) w();
  }

  /** Answers the reports held so far, and answers the next ones at once. */
  releaseReports(): void {
    this.holdReports = false;
    this.held = 0;
    for (const answer of this.#heldAnswers.splice(0)) answer();
  }

  async result(attemptId: string): Promise<ExecutionResult> {
    return waitFor(() => this.results.get(attemptId));
  }

  stop(): Promise<void> {
    for (const w of this.#wake.splice(0)) w();
    return new Promise((r) => {
      this.#server.close(() => r());
      this.#server.closeAllConnections();
    });
  }
}

export async function waitFor<T>(check: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

