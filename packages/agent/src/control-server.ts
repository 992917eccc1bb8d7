import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { AttemptCommand, ExecutionResult } from './executors/executor.ts';
import { errorFields, type Log } from './log.ts';

/**
 * The two hub-to-node machine scopes (docs/agent-protocol.md, "The control endpoint"). `node_proxy`: the Hub calls this endpoint
 * directly with its hub-to-node credential. `pilot_tunnel`: an attempt that reached the agent through the
 * channel it opened itself (the long poll), handed to this same endpoint with the agent's loopback token.
 */
export type MachineScope = 'node_proxy' | 'pilot_tunnel';

/** SPEC I1: every machine scope honours the capture and restore flags; nothing else is let in at all. */
export const MACHINE_SCOPES: readonly MachineScope[] = ['node_proxy', 'pilot_tunnel'];

/** What the control endpoint hands commands to: the agent, which executes each attempt id at most once. */
export interface ControlTarget {
  /** The attempt's result, or null when it is not known here (already started, or the executor lost it). */
  execute(command: AttemptCommand): Promise<ExecutionResult | null>;
}

export interface ControlApiOptions {
  target: ControlTarget;
  /** SHA-256 (hex) of the Hub's `node_proxy` token; null: the Hub cannot call this node directly. */
  hubCredentialSha256: string | null;
  log?: Log;
}

/** One request to the control endpoint, from HTTP or from the agent itself (the pull channel). */
export interface ControlRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The HTTP body was not JSON: refused with 400 once the caller is authenticated. */
  invalidJson?: boolean;
  correlationId?: string;
}

export interface ControlResponse {
  status: number;
  body: unknown;
}

/** An attempt as the Hub delivers it (docs/agent-protocol.md); fields the agent does not use are dropped. */
const AttemptBody = z.object({
  attempt_id: z.string().min(1).max(200),
  intent_id: z.string().min(1).max(200),
  operation: z.enum(['job_start', 'job_stop', 'job_restart', 'config_apply', 'restore']),
  stream_id: z.string().min(1).max(200).nullable().default(null),
  generation: z.number().int().nonnegative(),
  spec: z.record(z.string(), z.unknown()).default({}),
  action_id: z.string().nullable().default(null),
  config_version: z.string().nullable().default(null),
  flags: z.record(z.string(), z.boolean()).default({}),
  placement: z
    .object({ index: z.number().int(), count: z.number().int(), peers: z.array(z.object({ node_id: z.string(), data_address: z.string().nullable() })) })
    .nullable()
    .default(null),
}).refine((a) => a.stream_id !== null || a.operation === 'config_apply' || a.operation === 'restore', { message: 'a lifecycle operation needs a stream_id' });

const HEX_SHA256 = /^[0-9a-f]{64}$/;
const MAX_BODY = 1 << 20;

type Gate = { ok: true; scope: MachineScope } | { ok: false; response: ControlResponse };

/**
 * The agent's control endpoint, independent of its carrier: `POST /v1/attempts` (execute an attempt; 202 at
 * once, the result goes to the Hub through the result API), `POST /v1/apply` and `POST /v1/restore` (a
 * configuration apply / restore for this node; answered after execution with the node's own result).
 *
 * One gate for every path: a bearer token of a machine scope. The Hub's `node_proxy` token is checked
 * against its SHA-256 (the agent never holds it in plain); the `pilot_tunnel` token is minted here, at
 * random, at every start, and only ever used by this agent for attempts that came through its pull channel.
 * Operator API tokens, user sessions (cookies) and anonymous calls are refused before anything is read.
 */
export class ControlApi {
  readonly #target: ControlTarget;
  readonly #hubCredential: Buffer | null;
  readonly #loopbackToken = randomBytes(32).toString('base64url');
  readonly #log: Log;
  readonly #running = new Set<Promise<unknown>>();

  constructor(options: ControlApiOptions) {
    const hex = options.hubCredentialSha256?.trim().toLowerCase() ?? null;
    if (hex !== null && !HEX_SHA256.test(hex)) throw new Error('the hub credential must be a SHA-256 digest in hex (64 characters)');
    this.#target = options.target;
    this.#hubCredential = hex === null ? null : Buffer.from(hex, 'hex');
    this.#log = options.log ?? (() => {});
  }

  /**
   * The pull channel's way in (`pilot_tunnel`): an attempt the agent took from its long poll, handed to the
   * same handler and gate as a `node_proxy` call, with the loopback token. Configuration attempts go to
   * `/v1/apply` or `/v1/restore` and are answered after execution; others to `/v1/attempts`.
   */
  async forward(command: AttemptCommand): Promise<ControlResponse> {
    const path = command.operation === 'config_apply' ? '/v1/apply' : command.operation === 'restore' ? '/v1/restore' : '/v1/attempts';
    return this.handle({ method: 'POST', path, headers: { authorization: `Bearer ${this.#loopbackToken}` }, body: command });
  }

  async handle(request: ControlRequest): Promise<ControlResponse> {
    const gate = this.#authenticate(request.headers);
    if (!gate.ok) {
      this.#log('warn', 'control request refused', { path: request.path, status: gate.response.status, code: (gate.response.body as { code: string }).code });
      return gate.response;
    }
    const { scope } = gate;
    const route = ROUTES[request.path];
    if (!route) return error(404, 'not_found', `no route ${request.path}`);
    if (request.method !== 'POST') return error(405, 'method_not_allowed', `${request.path} takes POST`);
    if (request.invalidJson) return error(400, 'invalid_json', 'the body is not valid JSON');
    const parsed = AttemptBody.safeParse(request.body);
    if (!parsed.success) return error(400, 'invalid_attempt', z.prettifyError(parsed.error));
    const command: AttemptCommand = parsed.data;
    if (route.operation && command.operation !== route.operation) {
      return error(400, 'operation_mismatch', `${request.path} takes ${route.operation}, not ${command.operation}`);
    }
    this.#log('info', 'attempt received', { attempt_id: command.attempt_id, operation: command.operation, channel: scope, path: request.path, ...(request.correlationId ? { correlation_id: request.correlationId } : {}) });

    if (route.operation === null) {
      // Answered at once: the result travels to the Hub through the result API, as for the pull channel.
      const run = this.#run(scope, command).catch((e: unknown) => this.#log('error', 'attempt failed to run', { attempt_id: command.attempt_id, ...errorFields(e) }));
      this.#running.add(run);
      void run.finally(() => this.#running.delete(run));
      return { status: 202, body: { accepted: true, attempt_id: command.attempt_id } };
    }
    const result = await this.#run(scope, command);
    return result === null
      ? { status: 202, body: { attempt_id: command.attempt_id, result: null } }
      : { status: 200, body: { attempt_id: command.attempt_id, result } };
  }

  /** Waits for attempts accepted by `/v1/attempts` that are still executing. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #run(scope: MachineScope, command: AttemptCommand): Promise<ExecutionResult | null> {
    if (command.operation === 'config_apply' || command.operation === 'restore') return this.#configure(scope, command);
    return this.#target.execute(command);
  }

  /** A configuration apply or restore: the capture and restore flags hold for every machine scope (SPEC I1). */
  #configure(scope: MachineScope, command: AttemptCommand): Promise<ExecutionResult | null> {
    return this.#target.execute({ ...command, flags: honouredFlags(scope, command.flags) });
  }

  #authenticate(headers: ControlRequest['headers']): Gate {
    const authorization = header(headers, 'authorization');
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? null;
    if (token === null) {
      const session = header(headers, 'cookie') !== undefined;
      return {
        ok: false,
        response: error(
          401,
          'unauthenticated',
          session ? 'user sessions are not accepted here: a hub-to-node bearer credential is required' : 'a hub-to-node bearer credential is required',
        ),
      };
    }
    if (sameSecret(token, this.#loopbackToken)) return { ok: true, scope: 'pilot_tunnel' };
    if (this.#hubCredential !== null && timingSafeEqual(createHash('sha256').update(token).digest(), this.#hubCredential)) {
      return { ok: true, scope: 'node_proxy' };
    }
    return { ok: false, response: error(403, 'machine_scope_required', 'this credential holds neither hub-to-node scope (node_proxy, pilot_tunnel)') };
  }
}

/** The flags a command keeps for a scope: all of them for a machine scope, none of the privileged ones otherwise. */
export function honouredFlags(scope: string, flags: Record<string, boolean>): Record<string, boolean> {
  if ((MACHINE_SCOPES as readonly string[]).includes(scope)) return flags;
  const { capture_recovery: _dropped, ...rest } = flags;
  return rest;
}

const ROUTES: Record<string, { operation: 'config_apply' | 'restore' | null }> = {
  '/v1/attempts': { operation: null },
  '/v1/apply': { operation: 'config_apply' },
  '/v1/restore': { operation: 'restore' },
};

function error(status: number, code: string, message: string): ControlResponse {
  return { status, body: { code, message, details: null } };
}

function header(headers: ControlRequest['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A certificate and its private key (PEM) the control endpoint serves TLS with. */
export interface ControlTls {
  cert: string;
  key: string;
}

export interface ControlServer {
  /** `host:port`, or `https://host:port` over TLS, as the Hub reaches it (the `control_address` the agent registers). */
  address: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves a ControlApi on `host` (127.0.0.1 unless told otherwise) and `port` (0: any free port): over HTTPS
 * with `tls`, else plain HTTP.
 */
export async function startControlServer(api: ControlApi, host: string, port: number, tls: ControlTls | null = null): Promise<ControlServer> {
  const handler = (req: IncomingMessage, res: ServerResponse) => void serve(api, req, res);
  const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, handler) : createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${tls ? 'https://' : ''}${host.includes(':') ? `[${host}]` : host}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(api: ControlApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const incoming = req.headers['x-correlation-id'];
  const correlationId = typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  let response: ControlResponse;
  try {
    const text = await readBody(req);
    let body: unknown = undefined;
    let invalidJson = false;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        invalidJson = true;
      }
    }
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    response = await api.handle({ method: req.method ?? 'GET', path, headers: req.headers, body, invalidJson, correlationId });
  } catch (e) {
    response = (e as { code?: string }).code === 'body_too_large' ? error(413, 'body_too_large', `at most ${MAX_BODY} bytes`) : error(500, 'internal', String(e));
  }
  const payload = JSON.stringify({ ...(response.body as object), ...(response.status >= 400 ? { correlation_id: correlationId } : {}) });
  res.writeHead(response.status, { 'content-type': 'application/json', 'x-correlation-id': correlationId }).end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(Object.assign(new Error('body too large'), { code: 'body_too_large' }));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
