import { connect, type Socket } from 'node:net';
import type { Answer } from './http-request.ts';

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One simulated agent client's kept-alive HTTP/1.1 connection, for the report load: a request is one
 * write of a pre-built head and its JSON body, an answer is read by its Content-Length. Node's HTTP client
 * cost the load generator a sizeable share of the machine's CPU per report, taken from the Hub and
 * PostgreSQL it measures (docs/benchmarks.md); this costs a fraction of that. It sends one
 * request at a time (the load's clients wait for each answer) and speaks only what the Hub and the
 * baselines answer with: a Content-Length body, kept alive.
 */
export class ReportConnection {
  private socket: Socket | null = null;
  private received: Buffer[] = [];
  private pending: { resolve(a: Answer): void; reject(e: Error): void; answered: boolean } | null = null;

  private readonly port: number;

  constructor(port: number) {
    this.port = port;
  }

  /** POSTs a JSON body. A connection the server closed while idle is opened again and the request sent once more. */
  async post(path: string, token: string, body: unknown): Promise<Answer> {
    const payload = Buffer.from(JSON.stringify(body));
    const request = Buffer.concat([
      Buffer.from(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`,
      ),
      payload,
    ]);
    const reused = this.socket !== null;
    try {
      return await this.send(request);
    } catch (e) {
      if (!reused || (e as { answered?: boolean }).answered) throw e;
      return this.send(request);
    }
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private send(request: Buffer): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.pending = { resolve, reject, answered: false };
      this.open().write(request);
    });
  }

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect({ host: '127.0.0.1', port: this.port, noDelay: true });
    socket.on('data', (chunk: Buffer) => {
      this.received.push(chunk);
      if (this.pending) this.pending.answered = true;
      this.read();
    });
    const lost = (e?: Error) => {
      if (this.socket === socket) this.socket = null;
      this.received = [];
      const pending = this.pending;
      this.pending = null;
      pending?.reject(Object.assign(e ?? new Error('connection closed before the answer'), { answered: pending.answered }));
    };
    socket.on('error', lost);
    socket.on('close', () => lost());
    this.socket = socket;
    return socket;
  }

  /** Answers the pending request once its head and Content-Length body are in. */
  private read(): void {
    const data = this.received.length === 1 ? this.received[0]! : Buffer.concat(this.received);
    this.received = [data];
    const headEnd = data.indexOf(HEAD_END);
    if (headEnd < 0 || !this.pending) return;
    const head = data.subarray(0, headEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.socket?.destroy(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
      return;
    }
    const end = headEnd + HEAD_END.length + Number(length[1]);
    if (data.length < end) return;
    const text = data.subarray(headEnd + HEAD_END.length, end).toString('utf8');
    this.received = data.length > end ? [data.subarray(end)] : [];
    const pending = this.pending;
    this.pending = null;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    const retryAfter = /\r\nretry-after: *(\d+)/i.exec(head);
    pending.resolve({ status: Number(head.slice(9, 12)), body, ...(retryAfter ? { retryAfter: Number(retryAfter[1]) } : {}) });
    if (/\r\nconnection: *close/i.test(head)) this.close();
  }
}
