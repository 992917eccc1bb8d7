import type { Mode, RetryPolicy } from '@fleetplane/core';
import type { Actor, Pipeline } from '../commands/pipeline.ts';
import type { Db } from '../database/connect.ts';
import type { Logger } from '../logger.ts';
import { leaseAttempts, type LeasedAttempt } from '../reconcile/lease-attempts.ts';
import { recordResult } from '../reconcile/record-result.ts';
import { timeOrderedUuid } from '../time-ordered-id.ts';
import { deliveredAttempt } from './delivered.ts';
import { nodeCredential } from './node-credential.ts';
import type { Transport } from './transport.ts';

export interface NodeProxyOptions {
  db: Db;
  pipeline: Pipeline;
  logger: Logger;
  /** The configured global mode (the settings stream may override it; leaseAttempts reads both). */
  mode: Mode;
  leaseMs: number;
  /** Backoff for a push that provably never reached the node (see nodeProxyTransport). */
  retry: RetryPolicy;
  /** The hub-to-node credential sent as `Authorization: Bearer`; agents check its SHA-256. */
  token: string;
  /** How long one push may take before it counts as failed (default 5000 ms). */
  timeoutMs?: number;
  onPushed?(outcome: 'delivered' | 'failed'): void;
  /** A push that could not connect scheduled a retry. */
  onRetry?(): void;
}

export interface NodeProxyTransport extends Transport {
  readonly scope: 'node_proxy';
  /** Leases the node's queued attempts and pushes them to `controlAddress` (`host:port`). */
  deliver(nodeId: string, controlAddress: string, correlationId?: string): Promise<void>;
}

/**
 * The push channel (`node_proxy`): the Hub calls the agent's control endpoint, `POST
 * http://<control_address>/v1/attempts`, with that node's credential under the hub-to-node token. The node's queued attempts are first
 * leased by the same command the long poll runs, so each is recorded as dispatched, with its lease, before
 * it is sent. A push whose connection was never made (refused, no route, unknown host) provably delivered
 * nothing: it is recorded as a temporary failure, `node_unreachable`, and retried with backoff (SPEC C1).
 * Any other failure (timed out, cut off, answered with an error) changes nothing: the attempt stays
 * dispatched and becomes ambiguous when its lease runs out, and is never sent again, because the Hub cannot
 * know whether the node received it.
 */
export function nodeProxyTransport(options: NodeProxyOptions): NodeProxyTransport {
  const { db, pipeline, logger, mode, leaseMs, token, retry } = options;
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
        for (const attempt of attempts) await push(nodeId, controlAddress, attempt, correlationId);
      }),
    );
  }

  async function push(nodeId: string, controlAddress: string, attempt: LeasedAttempt, correlationId: string): Promise<void> {
    const abort = new AbortController();
    inflight.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const res = await fetch(`http://${controlAddress}/v1/attempts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${nodeCredential(token, nodeId)}`, 'content-type': 'application/json', 'x-correlation-id': correlationId },
        body: JSON.stringify(deliveredAttempt(attempt)),
        signal: abort.signal,
      });
      await res.body?.cancel().catch(() => {});
      if (!res.ok) throw new Error(`control endpoint answered ${res.status}`);
      options.onPushed?.('delivered');
    } catch (e) {
      options.onPushed?.('failed');
      const cause = (e as Error).cause;
      const error = abort.signal.aborted ? String(abort.signal.reason) : cause ? String(cause) : String(e);
      const context = { node_id: nodeId, attempt_id: attempt.attemptId, control_address: controlAddress, correlation_id: correlationId, error };
      if (!abort.signal.aborted && neverConnected(cause)) {
        const actor: Actor = { principal: 'hub', role: 'system', source: 'worker', correlationId };
        const failure = { outcome: 'failed', generation: attempt.generation, failure_class: 'temporary', code: 'node_unreachable', message: error, mutation: null } as const;
        const recorded = await pipeline.run(actor, recordResult(attempt.attemptId, nodeId, failure, retry, Math.random()));
        if (recorded.ok && recorded.value.result.retryAt) options.onRetry?.();
        logger.warn('attempt push could not connect: recorded as a temporary failure, retried with backoff', context);
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
    async offer(nodeId) {
      const node = await db.selectFrom('nodes').select('control_address').where('node_id', '=', nodeId).executeTakeFirst();
      if (node?.control_address) await deliver(nodeId, node.control_address);
    },
    async stop() {
      for (const abort of inflight) abort.abort(new Error('hub stopping'));
    },
  };
}

/** Connection errors that mean no byte of the request reached the node. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function neverConnected(cause: unknown): boolean {
  return NOT_CONNECTED.has(String((cause as { code?: unknown } | undefined)?.code));
}
