import { AttemptResult, CONTROL_ADDRESS_PATTERN, isPushableAddress, RemovedStream, Report, retiredRefusal } from '@fleetplane/core';
import { z } from 'zod';
import { registeredNode, registerNode } from '../../nodes/register-node.ts';
import { modeSetting } from '../../reconcile/load.ts';
import { ingestReport } from '../../reconcile/ingest-report.ts';
import { leaseAttempts } from '../../reconcile/lease-attempts.ts';
import { answeredAttempt, FOREIGN_ATTEMPT, recordResult } from '../../reconcile/record-result.ts';
import { DeliveredAttempt, deliveredAttempt } from '../../transport/delivered.ts';
import { inTime } from '../../transport/in-time.ts';
import type { FirstLook } from '../../transport/first-look.ts';
import { HttpError } from '../errors.ts';
import { route } from '../route.ts';
import { AttemptView, attemptView } from '../views/intent.ts';
import { NodeView, nodeView } from '../views/node.ts';

const Text = z.string().min(1).max(200);

export const Registration = z
  .object({
    node_id: Text,
    boot_id: Text,
    agent_version: z.string().max(64).nullable().default(null),
    capabilities: z.array(z.string().min(1).max(64)).max(64).default([]),
    data_address: Text.nullable().default(null),
    // The Hub builds `<control_address>/v1/attempts` from it: a host (name, IPv4 or [IPv6]) and a port, with
    // `https://` before them when the endpoint serves TLS (over plain HTTP otherwise).
    control_address: z
      .string()
      .max(200)
      .regex(CONTROL_ADDRESS_PATTERN, 'host:port or https://host:port')
      .refine(isPushableAddress, 'a port of 1-65535, and a host a URL can hold (IPv4 parts at most 255, brackets around IPv6 only)')
      .nullable()
      .default(null),
  })
  .strict();

export const agentRoutes = [
  route({
    method: 'post',
    path: '/api/v1/agent/register',
    operationId: 'registerAgent',
    tag: 'agent',
    errors: { 403: ['node_mismatch', 'node_retired'] },
    summary: "Register (or re-register) the calling agent's node; labels are never touched",
    access: 'agent',
    body: Registration,
    responses: { 200: NodeView },
    async handle({ body, principal, hub, run, deny }) {
      if (body.node_id !== principal.nodeId) await deny('node_mismatch', `this credential is bound to node ${principal.nodeId}`);
      const { row, setting } = registeredNode(await run(registerNode(body)));
      return { status: 200, body: nodeView(row, hub.clock.now(), hub.config, modeSetting(setting, hub.config.file.reconciliation.mode).mode) };
    },
  }),
];

/**
 * A report's body limit: the Hub takes reports of up to 10,000 streams (`Report`), and a report that size, with
 * stream and action ids of the longest, health, and error texts of a thousand characters on average, fits;
 * the default 1 MiB held 7,000 short ones (docs/decisions.md, "A report's body limit").
 */
export const REPORT_BODY_LIMIT = 16 * 1024 * 1024;

export const agentReportRoutes = [
  route({
    method: 'post',
    path: '/api/v1/agent/reports',
    operationId: 'reportNodeState',
    tag: 'agent',
    errors: { 403: ['node_mismatch', 'node_retired'], 409: ['node_not_registered'] },
    summary: "A full report of the calling agent's node; a replayed or stale one is ignored (200, accepted false)",
    access: 'agent',
    body: Report,
    bodyLimit: REPORT_BODY_LIMIT,
    responses: { 202: z.object({ accepted: z.literal(true) }), 200: z.object({ accepted: z.literal(false), reason: z.string() }) },
    async handle({ body, principal, run, deny, hub }) {
      if (body.node_id !== principal.nodeId) await deny('node_mismatch', `this credential is bound to node ${principal.nodeId}`);
      const { result } = await run(ingestReport(body));
      if (result.accepted) hub.metrics.reportsIngested.inc();
      for (const ms of result.convergedAfterMs) hub.metrics.reconciliationLatency.observe(ms / 1000);
      return result.accepted ? { status: 202, body: { accepted: true } } : { status: 200, body: { accepted: false, reason: 'stale_report' } };
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/agent/attempts',
    operationId: 'pollAttempts',
    held: true,
    tag: 'agent',
    errors: { 403: ['node_retired'] },
    summary: "Long poll (wait seconds, 0-60) for the calling node's attempts, each leased to it before it is answered, and the removed streams it still reports",
    access: 'agent',
    query: z.object({ wait: z.coerce.number().int().min(0).max(60).default(25) }),
    responses: { 200: z.object({ attempts: z.array(DeliveredAttempt), removed_streams: z.array(RemovedStream) }) },
    async handle({ query, principal, run, hub, signal, deny, correlationId }) {
      const nodeId = principal.nodeId!;
      const { mode, lease_ms } = hub.config.file.reconciliation;
      const deadline = Date.now() + query.wait * 1000;
      // An attempt committed after the first look is announced after the watch began: the wait sees it.
      const watch = hub.transport.watch(nodeId);
      try {
        // A retired node's credential is refused (issue 22), audited. Registration, reports and results are
        // refused by their commands, which read the node anyway; the long poll learns it from a look.
        const refuseRetired = async ({ retiredAt }: FirstLook) => {
          if (!retiredAt) return;
          const refusal = retiredRefusal(nodeId, retiredAt);
          if (!refusal.ok) await deny(refusal.error.code, refusal.error.message, 403, refusal.error.details);
        };
        const look = await hub.firstLook(nodeId);
        await refuseRetired(look);
        // Removed streams as of the first look: the node forgets them, and its next poll looks again.
        const answer = (attempts: DeliveredAttempt[]) => ({ status: 200 as const, body: { attempts, removed_streams: [...look.removedStreams] } });
        let lease = look.queued;
        for (;;) {
          // A poll its agent gave up on leases nothing: those attempts would be dispatched to no one. Nor does one
          // on a Hub that is stopping: its connection is about to be cut, and the agent polls another Hub.
          if (signal.aborted || hub.streams.stopping.aborted) return answer([]);
          const leased = lease ? (await run(leaseAttempts(nodeId, mode, lease_ms))).result : [];
          const result = inTime(leased, hub.clock.now(), lease_ms, hub.logger, { node_id: nodeId, correlation_id: correlationId });
          const left = deadline - Date.now();
          if (result.length > 0 || left <= 0) return answer(result.map(deliveredAttempt));
          // A lease that found nothing may follow the node's retirement (its route wakes the node's polls): look again.
          if (lease) await refuseRetired(await hub.firstLook(nodeId));
          // Woken by an offer, the poll leases at once: attempts were queued for its node, and a probe first would
          // only cost a round trip. At the deadline it answers empty, and the agent's next poll looks again.
          if (!(await watch.wait(left, signal))) return answer([]);
          lease = true;
        }
      } finally {
        watch.close();
      }
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/agent/attempts/:id/result',
    operationId: 'recordAttemptResult',
    tag: 'agent',
    errors: { 403: ['node_retired'], 404: ['attempt_not_found'], 409: ['generation_mismatch'] },
    summary: "The agent's result for one of its node's attempts",
    access: 'agent',
    params: z.object({ id: z.string().min(1).max(200) }),
    body: AttemptResult,
    responses: { 200: AttemptView },
    async handle({ params, body, principal, run, hub, deny }) {
      const { retry_base_ms, retry_max_ms } = hub.config.file.reconciliation;
      const committed = await run(recordResult(params.id, principal.nodeId!, body, { baseMs: retry_base_ms, maxMs: retry_max_ms }, Math.random())).catch(
        // Another node's attempt is refused as an unknown one (nothing about it leaks), and audited (SPEC J1).
        (e: unknown) => (e instanceof HttpError && e.code === FOREIGN_ATTEMPT ? deny('attempt_not_found', e.message, 404) : Promise.reject(e)),
      );
      if (committed.result.retryAt) hub.metrics.retries.inc();
      if (committed.result.leaseExpired) hub.metrics.leaseExpiries.inc();
      return { status: 200, body: attemptView(answeredAttempt(committed)) };
    },
  }),
];
