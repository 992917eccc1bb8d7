import { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import winston from 'winston';
import { ConfigFile, hashToken, type HubConfig } from '../../packages/hub/src/config.ts';
import type { Clock } from '../../packages/hub/src/clock.ts';
import { startHub, type Hub, type HubOptions } from '../../packages/hub/src/hub.ts';
import { createLogger, type Logger } from '../../packages/hub/src/logger.ts';
import { holdToContract } from './contract.ts';

/** Agents' tokens: `<node>-agent-token`. */
export const agentToken = (nodeId: string) => `${nodeId}-agent-token`;

/** Tokens of the test credentials: one per role, and the agents of edge-1 and edge-2. */
export const TOKENS = {
  admin: 'admin-token',
  admin2: 'admin2-token',
  operator: 'operator-token',
  viewer: 'viewer-token',
  agent1: agentToken('edge-1'),
  agent2: agentToken('edge-2'),
} as const;

/** alice and carol (admins), bob (operator), audit (viewer), and one agent credential for each of edge-1 … edge-N. */
export function testConfig(
  nodes = 2,
  reconciliation: Partial<ConfigFile['reconciliation']> = {},
  controlApi: Partial<Omit<ConfigFile['control_api'], 'credentials' | 'oidc'>> = {},
  log: Partial<ConfigFile['log']> = {},
): HubConfig {
  const file = ConfigFile.parse({
    control_api: {
      // Test Hubs hold a few connections: the default (30,000) would warn on every machine whose open-file limit is under 31,024.
      max_connections: 10_000,
      ...controlApi,
      credentials: [
        { id: 'alice', role: 'admin', token_sha256: hashToken(TOKENS.admin) },
        { id: 'carol', role: 'admin', token_sha256: hashToken(TOKENS.admin2) },
        { id: 'bob', role: 'operator', token_sha256: hashToken(TOKENS.operator) },
        { id: 'audit', role: 'viewer', token_sha256: hashToken(TOKENS.viewer) },
        ...Array.from({ length: nodes }, (_, i) => ({
          id: `edge-${i + 1}-agent`,
          role: 'agent',
          node_id: `edge-${i + 1}`,
          token_sha256: hashToken(agentToken(`edge-${i + 1}`)),
        })),
      ],
    },
    reconciliation,
    log,
  });
  return { port: 0, bind: null, tls: null, dataDir: '/nonexistent', databaseUrl: null, embeddedPort: 0, file, generatedAdminToken: null, adminTokenFile: null };
}

export interface TestHub extends Hub {
  call(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{
    status: number;
    body: any;
    headers: Headers;
  }>;
}

/**
 * Calls a Hub at `url` as the test credentials (TOKENS) do; answers with status, parsed body and headers. An
 * https:// Hub is reached through `connections` (trusting the test CA). An answer outside the route's OpenAPI
 * contract throws (contract.ts).
 */
export function caller(url: string, connections?: Dispatcher): Pick<TestHub, 'call'> {
  return {
    async call(method, path, { token = TOKENS.admin, body, headers = {} } = {}) {
      const res = await fetch(url + path, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body) } : {}),
        ...(connections ? { dispatcher: connections } : {}),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: /metrics
      }
      holdToContract({ method, path, status: res.status, headers: res.headers, text, body: parsed });
      return { status: res.status, body: parsed, headers: res.headers };
    },
  };
}

/**
 * The test Hub's log unless a test gives its own: its errors kept in memory (the newest 200 lines), none
 * printed, so that an answer 500 can show what the Hub logged of it (startTestHub).
 */
function keptErrors(): { logger: Logger; of(correlationId: string): string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk).trimEnd());
      if (lines.length > 200) lines.shift();
      done();
    },
  });
  return { logger: createLogger('error', false, [new winston.transports.Stream({ stream: sink })]), of: (id) => lines.filter((l) => l.includes(id)) };
}

/**
 * A Hub on a free port against the given database, with an optional clock. Its log prints nothing (unless the
 * test gives a logger); an answer 500 prints the lines the Hub logged with its correlation id, which a flaky
 * failure otherwise leaves unexplained.
 */
export async function startTestHub(
  databaseUrl: string,
  options: {
    clock?: Clock;
    config?: HubConfig;
    sweepEveryMs?: number;
    resyncEveryMs?: number;
    bootLockWaitMs?: number;
    approvalSweepEveryMs?: number;
    forgetKeysEveryMs?: number;
    pruneIntentsEveryMs?: number;
    segmentsEveryMs?: number;
    segmentBounds?: HubOptions['segmentBounds'];
    idleTimeoutMs?: number;
    logger?: Logger;
    /** Listen on this port (a Hub restarted on its address); default any free one. */
    port?: number;
  } = {},
): Promise<TestHub> {
  const errors = keptErrors();
  const hub = await startHub({
    config: options.config ?? testConfig(),
    databaseUrl,
    port: options.port ?? 0,
    logger: options.logger ?? errors.logger,
    ...(options.clock ? { clock: options.clock } : {}),
    // Tests sweep leases themselves, at the times their clock says.
    sweepEveryMs: options.sweepEveryMs ?? 3_600_000,
    // Nor does the resync run unless asked for: a test sees each pass its commands ask for, and only those.
    resyncEveryMs: options.resyncEveryMs ?? 3_600_000,
    // Nor the sweep for approvals whose expiry job was lost: a test moving its clock sees expiry by the jobs.
    approvalSweepEveryMs: options.approvalSweepEveryMs ?? 3_600_000,
    ...(options.bootLockWaitMs ? { bootLockWaitMs: options.bootLockWaitMs } : {}),
    ...(options.forgetKeysEveryMs ? { forgetKeysEveryMs: options.forgetKeysEveryMs } : {}),
    ...(options.pruneIntentsEveryMs ? { pruneIntentsEveryMs: options.pruneIntentsEveryMs } : {}),
    ...(options.segmentsEveryMs ? { segmentsEveryMs: options.segmentsEveryMs } : {}),
    ...(options.segmentBounds ? { segmentBounds: options.segmentBounds } : {}),
    ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
  });
  const { call } = caller(hub.url);
  return {
    ...hub,
    async call(method, path, request) {
      const answer = await call(method, path, request);
      const correlationId = (answer.body as { correlation_id?: unknown } | null)?.correlation_id;
      if (answer.status === 500 && typeof correlationId === 'string') {
        console.error(`${method} ${path} answered 500; the Hub logged:\n${errors.of(correlationId).join('\n') || '(nothing)'}`);
      }
      return answer;
    },
  };
}
