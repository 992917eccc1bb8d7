import { z } from 'zod';
import { healthVerdict, type StreamHealth } from '../reconcile/health.ts';

/**
 * A rollout's health gate (SPEC L3): a batch passes only once its targets converged and then stayed
 * converged and healthy for `soak_ms`; more than `max_unhealthy_targets` targets against it fail the batch,
 * which then pauses the rollout or rolls the batch back (`on_unhealthy`).
 */
export const HealthGate = z
  .object({
    soak_ms: z.number().int().min(0).max(86_400_000).default(60_000),
    max_unhealthy_targets: z.number().int().min(0).max(10_000).default(0),
    on_unhealthy: z.enum(['pause', 'rollback']).default('pause'),
  })
  .strict();
export type HealthGate = z.infer<typeof HealthGate>;

export type GateState = 'soaking' | 'passed' | 'failed';

/**
 * A batch's gate as shown (SPEC L5): a soak ends by passing or failing while its rollout applies. One whose
 * rollout was paused, cancelled or rolled back first was stopped unjudged, with no end to wait for: a resume
 * soaks the batch again from the start, and an ended rollout never judges it.
 */
export type ShownGateState = GateState | 'stopped';
export const shownGateState = (rolloutState: string, state: GateState): ShownGateState => (state === 'soaking' && rolloutState !== 'applying' ? 'stopped' : state);

/** How often a soaking batch is looked at again, besides the passes its targets' reports ask for. */
export const GATE_CHECK_MS = 1000;

/**
 * Why a target counts against its batch: a stream placed on it is unhealthy (it exited on its own, or
 * restarted within its agent's window) or not running, its node is not online, or it no longer reports the
 * rollout's version. `since` is when the Hub recorded what shows it.
 */
export interface GateEvidence {
  node_id: string;
  stream_id: string | null;
  reason: 'unhealthy' | 'not_running' | 'offline' | 'version_changed';
  detail: string;
  since: string | null;
}

/** What the gate reads of one target of the batch, as the projections hold it when the pass runs. */
export interface TargetObservation {
  nodeId: string;
  liveness: 'online' | 'stale' | 'offline';
  lastSeenAt: string | null;
  appliedVersion: string | null;
  /** When the node's last changed report was recorded: the report that shows its version and streams. */
  reportedAt: string | null;
  /** Streams placed on the node that are desired running, with what the node reports of each. */
  streams: Array<{ streamId: string; observed: { state: string; error: string | null; health: StreamHealth | null; reportedAt: string } | null }>;
}

/** Every reason each target of the batch counts against it now. */
export function gateEvidence(configVersion: string, observations: readonly TargetObservation[]): GateEvidence[] {
  const evidence: GateEvidence[] = [];
  for (const o of observations) {
    const add = (reason: GateEvidence['reason'], detail: string, streamId: string | null = null, since = o.reportedAt) =>
      evidence.push({ node_id: o.nodeId, stream_id: streamId, reason, detail, since });
    if (o.liveness !== 'online') add('offline', `the node is ${o.liveness}: last heard from at ${o.lastSeenAt ?? 'never'}`, null, o.lastSeenAt);
    if (o.appliedVersion !== configVersion) add('version_changed', `the node reports ${o.appliedVersion ?? 'no version'}, not ${configVersion}`);
    for (const s of o.streams) {
      if (!s.observed || s.observed.state !== 'running') {
        add('not_running', s.observed ? `${s.observed.state}${s.observed.error ? `: ${s.observed.error}` : ''}` : 'not reported', s.streamId, s.observed?.reportedAt ?? o.reportedAt);
      } else if (healthVerdict(s.observed.health) === 'unhealthy') {
        const h = s.observed.health!;
        add('unhealthy', h.status === 'exited' ? `exited with code ${h.exit_code ?? 'unknown'}` : `restarted ${h.restarts} times within the agent's window`, s.streamId, s.observed.reportedAt);
      }
    }
  }
  return evidence;
}

/** The targets the evidence counts against the batch. */
export const unhealthyTargets = (evidence: readonly GateEvidence[]): string[] => [...new Set(evidence.map((e) => e.node_id))];
