import { controlEndpoint, type Mode, type RetryPolicy } from '@fleetplane/core';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.ts';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import type { Logger } from '../logger.ts';
import { leaseAttempts, type LeasedAttempt } from '../reconcile/lease-attempts.ts';
import { recordResult } from '../reconcile/record-result.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import { handshakeFailed } from '../tls.ts';
import { deliveredAttempt } from './delivered.ts';
import { inTime } from './in-time.ts';
import { nodeCredential } from './node-credential.ts';
import type { Transport } from './transport.ts';

export interface NodeProxyOptions {
  db: Db;
  pipeline: Pipeline;
  logger: Logger;
  clock: Clock;
  /** The configured global mode (the settings stream may override it; leaseAttempts reads both). */
  mode: Mode;
  leaseMs: number;
  /** Backoff for a push that provably never reached the node (see nodeProxyTransport). */
  retry: RetryPolicy;
  /** The hub-to-node credential sent as `Authorization: Bearer`; agents check its SHA-256. */
  token: string;
  /** Connections to `https://` control endpoints: trusting control_api.node_proxy_ca_file (default: the system's CAs). */
  dispatcher?: Dispatcher;
  /** How long one push may take before it counts as failed (default 5000 ms). */
  timeoutMs?: number;
  onPushed?(outcome: 'delivered' | 'failed'): void;
  /** A push that could not connect scheduled a retry. */
  onRetry?(): void;
}

/** The push channel; the router (router.ts) decides which nodes it delivers to. */
export interface NodeProxyTransport extends Omit<Transport, 'offer'> {
  readonly scope: 'node_proxy';
  /** Leases the node's queued attempts and pushes them to `controlAddress` (`host:port`, or `https://host:port`). */
  deliver(nodeId: string, controlAddress: string, correlationId?: string): Promise<void>;
}

/**
 * The push channel (`node_proxy`): the Hub calls the agent's control endpoint, `POST
 * <control endpoint>/v1/attempts`, with that node's credential under the hub-to-node token: over HTTPS when the
 * registered control address is `https://host:port` (the endpoint's certificate verified against
 * `node_proxy_ca_file`), else `http://host:port`. The node's queued attempts are first
 * leased by the same command the long poll runs, so each is recorded as dispatched, with its lease, before
 * it is sent. A push whose connection was never made (refused, no route, unknown host) provably delivered
 * nothing: it is recorded as a temporary failure, `node_unreachable`, and retried with backoff (SPEC C1). So
 * is one whose TLS handshake failed (a certificate the Hub does not trust, or no TLS at all), as
 * `node_untrusted`: the request was never sent, and the node's credential never left the Hub.
 * Any other failure (timed out, cut off, answered with an error) changes nothing: the attempt stays
 * dispatched and becomes ambiguous when its lease runs out, and is never sent again, because the Hub cannot
 * know whether the node received it.
 */
export function nodeProxyTransport(options: NodeProxyOptions): NodeProxyTransport {
  const { db, pipeline, logger, clock, mode, leaseMs, token, retry } = options;
  const timeoutMs = options.timeoutMs ?? 5000;
  const inflight = new Set<AbortController>();

  async function deliver(nodeId: string, controlAddress: string, correlationId: string = timeOrderedUuid()): Promise<void> {
    const actor: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId };
    const outcome = await pipeline.run(actor, leaseAttempts(nodeId, mode, leaseMs));
    if (!outcome.ok) return;
    // One stream's attempts go in lease order, one at a time; streams go side by side, so an unreachable
    // node holds this worker for about one timeout, not one per attempt.
    const byStream = new Map<string | null, LeasedAttempt[]>();
    for (const a of outcome.value.result) byStream.set(a.streamId, [...(byStream.get(a.streamId) ?? []), a]);
    await Promise.all(
      [...byStream.values()].map(async (attempts) => {
        for (const attempt of attempts) {
          // Read before each push: the one before may have taken its time limit.
          const [sendable] = inTime([attempt], clock.now(), leaseMs, logger, { node_id: nodeId, correlation_id: correlationId });
          if (sendable) await push(nodeId, controlAddress, sendable, correlationId);
        }
      }),
    );
  }

  async function push(nodeId: string, controlAddress: string, attempt: LeasedAttempt, correlationId: string): Promise<void> {
    const abort = new AbortController();
    inflight.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const res = await fetch(`${controlEndpoint(controlAddress)}/v1/attempts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${nodeCredential(token, nodeId)}`, 'content-type': 'application/json', 'x-correlation-id': correlationId },
        body: JSON.stringify(deliveredAttempt(attempt)),
        signal: abort.signal,
        ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      });
      await res.body?.cancel().catch(() => {});
      if (!res.ok) throw new Error(`control endpoint answered ${res.status}`);
      options.onPushed?.('delivered');
    } catch (e) {
      options.onPushed?.('failed');
      const cause = (e as Error).cause;
      const error = abort.signal.aborted ? String(abort.signal.reason) : cause ? String(cause) : String(e);
      const context = { node_id: nodeId, attempt_id: attempt.attemptId, control_address: controlAddress, correlation_id: correlationId, error };
      const never = abort.signal.aborted ? null : neverDelivered(cause);
      if (never) {
        const actor: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId };
        const message = never === 'node_untrusted' ? `the control endpoint's TLS handshake failed: ${error}` : error;
        const failure = { outcome: 'failed', generation: attempt.generation, failure_class: 'temporary', code: never, message, mutation: null } as const;
        const recorded = await pipeline.run(actor, recordResult(attempt.attemptId, nodeId, failure, retry, Math.random()));
        if (recorded.ok && recorded.value.result.retryAt) options.onRetry?.();
        if (never === 'node_untrusted') logger.warn("attempt push refused: the control endpoint's TLS handshake failed (its certificate is not trusted, or it does not speak TLS); recorded as a temporary failure, retried with backoff", context);
        else logger.warn('attempt push could not connect: recorded as a temporary failure, retried with backoff', context);
        return;
      }
      logger.warn('attempt push failed: it stays dispatched until its lease expires, then is ambiguous', {
        ...context,
        lease_expires_at: attempt.leaseExpiresAt.toISOString(),
      });
    } finally {
      clearTimeout(timer);
      inflight.delete(abort);
    }
  }

  return {
    scope: 'node_proxy',
    deliver,
    async stop() {
      for (const abort of inflight) abort.abort(new Error('hub stopping'));
    },
  };
}

/**
 * The control addresses the nodes among these registered, of those seen after `seenAfter` (not offline), read
 * in one statement. An offline node is not pushed to: each push would fail, and each failure is events and a
 * retry, every retry_max_ms for as long as it is away. Its attempts wait queued, as a polling node's do, and
 * its agent's poll takes them when it is back.
 */
export async function controlAddresses(db: Db, nodeIds: readonly string[], seenAfter: Date): Promise<Map<string, string>> {
  if (nodeIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('nodes')
    .select(['node_id', 'control_address'])
    .where('node_id', 'in', nodeIds)
    .where('control_address', 'is not', null)
    .where('last_seen_at', '>', seenAfter)
    .execute();
  return new Map(rows.map((r) => [r.node_id, r.control_address!]));
}

/**
 * Connection errors that mean no byte of the request reached the node. ERR_INVALID_URL: a control address no
 * URL holds, registered before the Hub refused such (10.0.0.5:99999), is never connected to.
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);

function neverDelivered(cause: unknown): 'node_unreachable' | 'node_untrusted' | null {
  const code = String((cause as { code?: unknown } | undefined)?.code);
  return NOT_CONNECTED.has(code) ? 'node_unreachable' : handshakeFailed(code) ? 'node_untrusted' : null;
}
