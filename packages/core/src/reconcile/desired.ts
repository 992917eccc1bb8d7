import type { FleetEvent } from '../events/fleet-event.ts';
import { fail, ok, type Result } from '../result.ts';
import { intentStream, streamStream, type IntentOpenedData, type IntentSupersededData, type StreamDesiredData } from './events.ts';
import type { IntentState } from './intent.ts';
import type { DesiredStream, StreamState } from './stream.ts';

export interface DesiredWrite {
  streamId: string;
  /** The new desired state; null keeps the current one (an action such as a restart). */
  desired: DesiredStream | null;
  /** A one-shot action riding this generation (a restart), or null. */
  actionId: string | null;
  /** The generation the writer last saw (If-Match), or null to write unconditionally. */
  ifMatch: number | null;
  /** The operator's explicit override: the write goes to nodes a recovery claim holds (SPEC I13). */
  overrideHold: boolean;
}

export interface LiveIntent extends IntentState {
  /** Its attempts still waiting for delivery. */
  queuedAttempts: string[];
}

export interface DesiredWriteDecision {
  events: FleetEvent[];
  generation: number;
  /** Nodes whose reconciliation must run: the new placement and nodes it dropped. */
  nodes: string[];
}

/**
 * Every desired write is a new generation (SPEC A2) with one intent per placement node. Older live intents
 * of the stream are superseded with their queued attempts (A5). A node dropped from the placement gets an
 * intent to stop the stream: the workload does not linger where the operator no longer places it, even when
 * later generations follow before that stop converged. A node that never registered (a mistyped name) was
 * never sent anything and has nothing to stop: it gets no stop intent, which would otherwise stay open forever.
 * `intentIds` holds an id, made before the decision, for each node it may open an intent on (writeNodes).
 * `reported` is the highest generation of the stream any node reports. Past the stream's, it was written by
 * a log this Hub no longer holds (its database restored from a backup): the new generation goes past it, so
 * that no node takes it for one it already ran (an agent does nothing for a generation it runs, and refuses
 * an older one as stale), and the event says which generation it skipped.
 */
export function decideDesiredWrite(
  current: StreamState | null,
  live: readonly LiveIntent[],
  registered: ReadonlySet<string>,
  write: DesiredWrite,
  intentIds: ReadonlyMap<string, string>,
  reported: number,
): Result<DesiredWriteDecision> {
  const currentGeneration = current?.generation ?? 0;
  if (write.ifMatch !== null && write.ifMatch !== currentGeneration) {
    return fail('generation_conflict', `stream ${write.streamId} is at generation ${currentGeneration}, not ${write.ifMatch}`, {
      stream_id: write.streamId,
      generation: currentGeneration,
    });
  }
  const desired: DesiredStream | null =
    write.desired ?? (current ? { desired_state: current.desiredState, spec: current.spec, placement: current.placement } : null);
  if (desired === null) return fail('stream_not_found', `stream ${write.streamId} does not exist`, { stream_id: write.streamId });
  if (write.actionId !== null && desired.desired_state !== 'running') {
    return fail('stream_not_running', `stream ${write.streamId} is desired stopped: there is nothing to restart`, { stream_id: write.streamId });
  }
  const generation = Math.max(currentGeneration, reported) + 1;
  const stream: StreamDesiredData = {
    stream_id: write.streamId,
    generation,
    desired_state: desired.desired_state,
    spec: desired.spec,
    placement: desired.placement,
    action_id: write.actionId,
    ...(write.overrideHold && { override_hold: true as const }),
    ...(reported > currentGeneration && { reported_generation: reported }),
  };
  const events: FleetEvent[] = [{ streamId: streamStream(write.streamId), type: 'StreamDesired', data: stream }];

  const placed = desired.placement.nodes;
  // Dropped: the last placement's other nodes, and any node whose live intent this write supersedes (a stop
  // from an earlier drop not yet converged must be carried into the new generation, not lost with it).
  const before = new Set([...(current?.placement.nodes ?? []), ...live.map((i) => i.nodeId)]);
  const dropped = [...before].filter((n) => !placed.includes(n) && registered.has(n));
  const opened = new Map<string, string>();
  for (const [nodeId, state] of [...placed.map((n) => [n, desired.desired_state] as const), ...dropped.map((n) => [n, 'stopped'] as const)]) {
    const intentId = intentIds.get(nodeId);
    if (intentId === undefined) throw new Error(`no intent id was made for node ${nodeId} (see writeNodes)`);
    opened.set(nodeId, intentId);
    const data: IntentOpenedData = {
      intent_id: intentId,
      kind: 'lifecycle',
      stream_id: write.streamId,
      node_id: nodeId,
      generation,
      desired_state: state,
      action_id: state === 'running' ? write.actionId : null,
      config_version: null,
      rollout_id: null,
      recovery_ref: null,
      ...(write.overrideHold && { override_hold: true as const }),
    };
    events.push({ streamId: intentStream(intentId), type: 'IntentOpened', data });
  }
  for (const old of live) {
    const data: IntentSupersededData = {
      intent_id: old.intentId,
      superseded_by: opened.get(old.nodeId) ?? null,
      withdrawn_attempts: old.queuedAttempts,
    };
    events.push({ streamId: intentStream(old.intentId), type: 'IntentSuperseded', data });
  }
  return ok({ events, generation, nodes: [...placed, ...dropped] });
}

/** The nodes a desired write may open an intent on: its placement, the stream's last one and its live intents' nodes. */
export function writeNodes(current: StreamState | null, live: readonly LiveIntent[], write: DesiredWrite): string[] {
  const placed = write.desired?.placement.nodes ?? current?.placement.nodes ?? [];
  return [...new Set([...placed, ...(current?.placement.nodes ?? []), ...live.map((i) => i.nodeId)])];
}
