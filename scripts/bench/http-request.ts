import http from 'node:http';

/** A Hub's answer as simulated agents read it: the status and the parsed JSON body (or the text). */
export interface Answer {
  status: number;
  body: any;
  /** Seconds the Hub asked the client to wait before asking again (`Retry-After`), when it did. */
  retryAfter?: number;
}

/** An answer as a failure names it: the status and the start of the body. */
export const describeAnswer = (a: Answer): string => `${a.status} ${JSON.stringify(a.body).slice(0, 300)}`;

/** The kept-alive sockets a fleet of simulated agents shares. */
export const keptAlive = (): http.Agent => new http.Agent({ keepAlive: true, maxSockets: Infinity, keepAliveMsecs: 10_000 });

/**
 * One request from a simulated agent to the Hub on 127.0.0.1, over `agent`'s kept-alive sockets. A
 * kept-alive socket the Hub closed while idle (its keep-alive timeout) fails with ECONNRESET before the
 * Hub read anything: such a request is sent again once on a new socket, as Node's docs advise, and
 * `onResend` counts it.
 */
export async function hubRequest(
  agent: http.Agent,
  port: number,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  onResend: () => void = () => {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    return await sendOnce(agent, port, method, path, token, body, headers);
  } catch (e) {
    if (!(e as { reusedSocket?: boolean }).reusedSocket || (e as NodeJS.ErrnoException).code !== 'ECONNRESET') throw e;
    onResend();
    return sendOnce(agent, port, method, path, token, body, headers);
  }
}

function sendOnce(agent: http.Agent, port: number, method: string, path: string, token: string, body: unknown, extra: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...extra,
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          const retryAfter = Number(res.headers['retry-after']);
          resolve({ status: res.statusCode!, body: parsed, ...(Number.isFinite(retryAfter) && res.headers['retry-after'] ? { retryAfter } : {}) });
        });
      },
    );
    req.on('error', (e) => reject(Object.assign(e, { reusedSocket: req.reusedSocket })));
    req.end(payload);
  });
}
