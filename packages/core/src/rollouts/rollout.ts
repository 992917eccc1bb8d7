import { openConfigIntents, supersede, type ConfigTarget, type OpenedConfigIntent } from '../config/intents.ts';
import { fleetEvent, type EventDataByType, type FleetEvent, type FleetEventType } from '../events/fleet-event.ts';
import type { LiveIntent } from '../reconcile/desired.ts';
import type { IntentStateName } from '../reconcile/intent.ts';
import { fail, ok, type Result } from '../result.ts';
import {
  rolloutStream,
  TERMINAL_ROLLOUT_STATES,
  type RolloutBatchStartedData,
  type RolloutCancelledData,
  type RolloutConvergedData,
  type RolloutCreatedData,
  type RolloutKind,
  type RolloutPausedData,
  type RolloutResumedData,
  type RolloutRolledBackData,
  type RolloutStateName,
  type RolloutTargetConvergedData,
  type RolloutTargetFailedData,
  type TargetStateName,
} from './events.ts';
import { assignBatches, type Selector } from './targets.ts';
import { GATE_CHECK_MS, gateEvidence, unhealthyTargets, type GateState, type HealthGate, type TargetObservation } from './health-gate.ts';
import { rolloutRecovery, type TargetRecovery } from '../recovery/target-recovery.ts';
import { overridesHold } from '../recovery/hold.ts';

export interface RolloutTarget {
  nodeId: string;
  batch: number;
  state: TargetStateName;
  /** The target's configuration intent, once its batch started, as the intents projection holds it. */
  intent: {
    intentId: string;
    state: IntentStateName;
    failureClass: string | null;
    code: string | null;
    message: string | null;
    correlationId: string;
  } | null;
  recovery: TargetRecovery;
}

export interface RolloutState {
  rolloutId: string;
  kind: RolloutKind;
  configVersion: string;
  state: RolloutStateName;
  batchSize: number;
  batches: number;
  currentBatch: number;
  targets: RolloutTarget[];
  /** Its health gate, null when it has none (SPEC L3). */
  gate: HealthGate | null;
  /** The gate of the batch it last watched: soaking until a time, passed or failed. */
  gateStatus: { batch: number; state: GateState; until: string | null } | null;
}

/** What a decision that opens intents reads for each node it may touch (locked by the command). */
export type ConfigTargets = ReadonlyMap<string, ConfigTarget>;

export interface NewRollout {
  rolloutId: string;
  kind: RolloutKind;
  configVersion: string;
  batchSize: number;
  selector: Selector | null;
  /** The resolved, pinned target nodes, in batch order. */
  nodes: string[];
  approvalId: string | null;
  /** The rollout this one rolls back, when it was created by a rollback action. */
  rollbackOf: string | null;
  /** Its health gate (SPEC L3); none when not given. */
  health?: HealthGate | null;
}

export interface RolloutDecision {
  events: FleetEvent[];
  /** Nodes that got a new configuration intent: their reconciliation must run. */
  nodes: string[];
  /** The intents a batch start opened, which its command may queue attempts for at once. */
  opened?: OpenedConfigIntent[];
  /** When a soaking batch must be looked at again, whatever its targets report (SPEC L6). */
  wakeAt?: Date;
}

/** Target nodes already in another live rollout: one rollout moves a node's configuration at a time. */
export type BusyNodes = ReadonlyMap<string, string>;

const event = <T extends FleetEventType>(rolloutId: string, type: T, data: EventDataByType[T]) => fleetEvent(rolloutStream(rolloutId), type, data);

/**
 * Creates a rollout on a resolved, pinned set of nodes and starts its first batch, atomically (SPEC G3).
 * An empty resolution creates nothing (F6). Offline, stale or draining targets do not fail creation: their
 * intents wait behind the usual gates (G5).
 */
export function decideCreateRollout(
  input: NewRollout,
  busy: BusyNodes,
  configTargets: ConfigTargets,
): Result<RolloutDecision> {
  if (input.nodes.length === 0) {
    return fail('no_matching_nodes', 'the selector matches no node: nothing was created', { selector: input.selector });
  }
  const taken = input.nodes.filter((n) => busy.has(n));
  if (taken.length > 0) {
    return fail('target_in_rollout', `nodes ${taken.join(', ')} are in a live rollout: pause and cancel it, or roll it back, first`, {
      nodes: Object.fromEntries(taken.map((n) => [n, busy.get(n)])),
    });
  }
  const targets = assignBatches(input.nodes, input.batchSize);
  const created: RolloutCreatedData = {
    rollout_id: input.rolloutId,
    kind: input.kind,
    config_version: input.configVersion,
    batch_size: input.batchSize,
    selector: input.selector,
    targets,
    approval_id: input.approvalId,
    rollback_of: input.rollbackOf,
    ...(input.health ? { health: input.health } : {}),
  };
  const started = startBatch(input.rolloutId, input.kind, input.configVersion, 0, input.nodes.slice(0, input.batchSize), configTargets);
  return ok({ events: [event(input.rolloutId, 'RolloutCreated', created), ...started.events], nodes: started.nodes });
}

function startBatch(
  rolloutId: string,
  kind: RolloutKind,
  configVersion: string,
  batch: number,
  nodes: readonly string[],
  configTargets: ConfigTargets,
): RolloutDecision {
  const { events, opened } = openConfigIntents(nodes.map((n) => targetOf(configTargets, n)), configVersion, rolloutId, overridesHold(kind));
  const data: RolloutBatchStartedData = { rollout_id: rolloutId, batch, intents: opened.map((o) => ({ node_id: o.nodeId, intent_id: o.intentId })) };
  return { events: [event(rolloutId, 'RolloutBatchStarted', data), ...events], nodes: [...nodes], opened };
}

function targetOf(configTargets: ConfigTargets, nodeId: string): ConfigTarget {
  const target = configTargets.get(nodeId);
  if (!target) throw new Error(`node ${nodeId} was not loaded for a configuration decision`);
  return target;
}

/** What a pass of a rollout with a health gate reads besides the rollout: the time, and the current batch's targets as observed now. */
export interface GateInput {
  now: Date;
  observations: readonly TargetObservation[];
}

/**
 * The progression job (level-triggered, safe to run twice): settles the current batch's targets from their
 * intents, pauses on a failed target (G2), and starts the next batch only when every target of this one has
 * converged, that is reported the version with its streams converged (G1, A10), and, with a health gate,
 * has then stayed converged and healthy for the soak (L3).
 */
export function decideProgress(rollout: RolloutState, configTargets: ConfigTargets, gateInput: GateInput | null = null): RolloutDecision {
  if (rollout.state !== 'applying') return { events: [], nodes: [] };
  const events: FleetEvent[] = [];
  const batch = rollout.targets.filter((t) => t.batch === rollout.currentBatch);
  let failed = false;
  let settled = 0;
  for (const t of batch) {
    // A target removed with its retired node (cancelled) waits for nothing.
    if (t.state === 'converged' || t.state === 'cancelled') settled += 1;
    if (t.state === 'failed') failed = true;
    if (t.state !== 'applying' || !t.intent) continue;
    if (t.intent.state === 'converged') {
      const data: RolloutTargetConvergedData = { rollout_id: rollout.rolloutId, node_id: t.nodeId, intent_id: t.intent.intentId };
      events.push(event(rollout.rolloutId, 'RolloutTargetConverged', data));
      settled += 1;
    } else if (intentFailed(t)) {
      events.push(targetFailed(rollout.rolloutId, t));
      failed = true;
    }
  }
  if (failed) {
    const data: RolloutPausedData = { rollout_id: rollout.rolloutId, reason: 'target_failed' };
    return { events: [...events, event(rollout.rolloutId, 'RolloutPaused', data)], nodes: [] };
  }
  // A restore in flight or a moved claim holds the rollout: its targets settle, but no new batch starts (SPEC I5).
  if (settled < batch.length || rolloutRecovery(rollout.targets) !== 'none') return { events, nodes: [] };
  if (rollout.gate && gateInput) {
    const watched = watchGate(rollout, rollout.gate, gateInput);
    events.push(...watched.events);
    if (!watched.passed) return { events, nodes: [], ...(watched.wakeAt ? { wakeAt: watched.wakeAt } : {}) };
  }
  const next = rollout.currentBatch + 1;
  if (next >= rollout.batches) {
    const data: RolloutConvergedData = { rollout_id: rollout.rolloutId };
    return { events: [...events, event(rollout.rolloutId, 'RolloutConverged', data)], nodes: [] };
  }
  const nodes = rollout.targets.filter((t) => t.batch === next && t.state !== 'cancelled').map((t) => t.nodeId);
  const started = startBatch(rollout.rolloutId, rollout.kind, rollout.configVersion, next, nodes, configTargets);
  return { events: [...events, ...started.events], nodes: started.nodes, opened: started.opened };
}

/**
 * The health gate of a batch whose targets all converged (SPEC L3, L4): its soak starts now when it has not
 * yet (its end written into the event: the timing survives a restart), every target is looked at on each pass,
 * and the batch fails as soon as more targets than allowed count against it; it passes once the soak is over.
 */
function watchGate(rollout: RolloutState, gate: HealthGate, { now, observations }: GateInput): { events: FleetEvent[]; passed: boolean; wakeAt?: Date } {
  const id = rollout.rolloutId;
  const batch = rollout.currentBatch;
  const events: FleetEvent[] = [];
  let until: Date;
  if (rollout.gateStatus?.batch === batch && rollout.gateStatus.state === 'soaking' && rollout.gateStatus.until) {
    until = new Date(rollout.gateStatus.until);
  } else {
    until = new Date(now.getTime() + gate.soak_ms);
    events.push(event(id, 'RolloutGateSoaking', { rollout_id: id, batch, until: until.toISOString() }));
  }
  const evidence = gateEvidence(rollout.configVersion, observations);
  if (unhealthyTargets(evidence).length > gate.max_unhealthy_targets) {
    events.push(event(id, 'RolloutGateFailed', { rollout_id: id, batch, on_unhealthy: gate.on_unhealthy, evidence }));
    events.push(event(id, 'RolloutPaused', { rollout_id: id, reason: 'health_gate' }));
    return { events, passed: false };
  }
  if (now < until) return { events, passed: false, wakeAt: new Date(Math.min(until.getTime(), now.getTime() + GATE_CHECK_MS)) };
  events.push(event(id, 'RolloutGatePassed', { rollout_id: id, batch }));
  return { events, passed: true };
}

export type RolloutAction = { action: 'pause' } | { action: 'resume' } | { action: 'cancel' };

/**
 * Operator actions (SPEC G2): pause a rollout that is applying, resume only a paused one (re-applying the
 * current batch's failed targets with new intents, those of retired nodes left out), cancel any live one.
 * Terminal rollouts refuse them all.
 * Cancelling supersedes the targets' live intents: nodes keep whatever configuration they reached.
 */
export function decideRolloutAction(
  rollout: RolloutState,
  action: RolloutAction,
  live: readonly LiveIntent[],
  configTargets: ConfigTargets,
): Result<RolloutDecision> {
  if (TERMINAL_ROLLOUT_STATES.includes(rollout.state)) {
    return fail('rollout_terminal', `rollout ${rollout.rolloutId} is ${rollout.state}: it takes no more actions`, { state: rollout.state });
  }
  const id = rollout.rolloutId;
  switch (action.action) {
    case 'pause': {
      if (rollout.state !== 'applying') return fail('invalid_transition', `rollout ${id} is ${rollout.state}, not applying`, { state: rollout.state });
      const data: RolloutPausedData = { rollout_id: id, reason: 'operator' };
      return ok({ events: [event(id, 'RolloutPaused', data)], nodes: [] });
    }
    case 'resume': {
      if (rollout.state !== 'paused') return fail('invalid_transition', `rollout ${id} is ${rollout.state}: only a paused rollout resumes`, { state: rollout.state });
      // A node retired since the rollout was read has no row under the command's lock: its target was removed.
      const failed = reappliedOnResume(rollout).filter((n) => configTargets.has(n));
      // A failure during the pause is recorded as such before its target is applied again (G6).
      const settled = rollout.targets.filter((t) => failed.includes(t.nodeId) && intentFailed(t)).map((t) => targetFailed(id, t));
      const { events, opened } = openConfigIntents(failed.map((n) => targetOf(configTargets, n)), rollout.configVersion, id, overridesHold(rollout.kind));
      const data: RolloutResumedData = { rollout_id: id, intents: opened.map((o) => ({ node_id: o.nodeId, intent_id: o.intentId })) };
      return ok({ events: [...settled, event(id, 'RolloutResumed', data), ...events], nodes: failed });
    }
    case 'cancel': {
      const data: RolloutCancelledData = { rollout_id: id };
      return ok({ events: [event(id, 'RolloutCancelled', data), ...live.map((i) => supersede(i, null))], nodes: [] });
    }
  }
}

/** An applying target whose intent will not converge: blocked, or superseded by another write. */
const intentFailed = (t: RolloutTarget): boolean => t.state === 'applying' && (t.intent?.state === 'blocked' || t.intent?.state === 'superseded');

function targetFailed(rolloutId: string, t: RolloutTarget): FleetEvent {
  const intent = t.intent!;
  const data: RolloutTargetFailedData = {
    rollout_id: rolloutId,
    node_id: t.nodeId,
    intent_id: intent.intentId,
    failure_class: intent.failureClass,
    code: intent.state === 'superseded' ? 'superseded' : intent.code,
    message: intent.message,
    correlation_id: intent.correlationId,
  };
  return event(rolloutId, 'RolloutTargetFailed', data);
}

/**
 * The current batch's failed targets, which resume applies again: those settled as failed, and those whose
 * intent failed while the rollout was paused (no pass settles a paused rollout). A target being restored is
 * left to its restore.
 */
export function reappliedOnResume(rollout: RolloutState): string[] {
  return rollout.targets
    .filter((t) => t.batch === rollout.currentBatch && (t.state === 'failed' || intentFailed(t)) && t.recovery.phase !== 'restoring')
    .map((t) => t.nodeId);
}

/** Rollbacks are refused only by a rolled-back rollout (its rollback is a rollout of its own): a converged or cancelled one can be rolled back. */
export function refusesRollback(rollout: Pick<RolloutState, 'rolloutId' | 'state'>): Result<void> {
  if (rollout.state !== 'rolled_back') return ok(undefined);
  return fail('rollout_terminal', `rollout ${rollout.rolloutId} is ${rollout.state}: it takes no more actions`, { state: rollout.state });
}

/**
 * Each node's newest configuration intent's rollout: the rollout (a node-level apply or rollback is one, G4;
 * a restore is its rollout's) that last set out to change the node's configuration.
 */
export type LatestChanges = ReadonlyMap<string, string>;

/**
 * A rollback (either form) is refused when another rollout set out to change a node in its scope after this
 * one: it would undo that later change too, unseen. `kubectl rollout undo` likewise goes back from the
 * current revision, never from one behind it.
 */
export function refusesSuperseded(rollout: Pick<RolloutState, 'rolloutId'>, nodes: readonly string[], latest: LatestChanges): Result<void> {
  const id = rollout.rolloutId;
  const later = nodes.filter((n) => latest.has(n) && latest.get(n) !== id);
  if (later.length === 0) return ok(undefined);
  const by = [...new Set(later.map((n) => latest.get(n)!))];
  return fail(
    'rollout_superseded',
    `rollout ${by.join(', ')} changed ${later.join(', ')} after rollout ${id}, whose rollback would undo that too: roll back ${by.join(', ')} instead, or create a rollout of the version you want`,
    { nodes: Object.fromEntries(later.map((n) => [n, latest.get(n)])), rollouts: by },
  );
}

/** A target this rollout may have changed: its batch started, and it was not taken out with its retired node. */
export const changedTarget = (t: Pick<RolloutTarget, 'state'>): boolean => t.state === 'applying' || t.state === 'converged' || t.state === 'failed';

/**
 * The nodes a rollback to a version goes to, in target order: the targets this rollout may have changed, and
 * those its cancel found applying (cancelled, with an intent: their apply may have run). The rollback is a
 * rollout of its own, whose claims hold there. A target whose batch never started runs what it ran before
 * the rollout; undoing the rollout leaves it alone.
 */
export const rollbackNodes = (rollout: RolloutState): string[] =>
  rollout.targets.filter((t) => changedTarget(t) || (t.state === 'cancelled' && t.intent !== null)).map((t) => t.nodeId);

/**
 * What refuses a rollback to a version on these nodes, in this order: a rolled-back rollout, a restore in
 * flight on any target (SPEC I2), a later change on one of the nodes. The command asks before the approval
 * gate too: a rollback that would be refused is not one to approve.
 */
export function refusesRollbackTo(rollout: RolloutState, nodes: readonly string[], latest: LatestChanges): Result<void> {
  const terminal = refusesRollback(rollout);
  if (!terminal.ok) return terminal;
  const restoring = rollout.targets.filter((t) => t.recovery.phase === 'restoring').map((t) => t.nodeId);
  if (restoring.length > 0) {
    return fail('rollback_in_progress', `a restore is in flight on ${restoring.join(', ')}: one rollback per target at a time`, { nodes: restoring });
  }
  return refusesSuperseded(rollout, nodes, latest);
}

/**
 * Rollback to an earlier version (SPEC G6): a new rollout, with new intents and generations, on the targets
 * this rollout may have changed (`rollbackNodes`; `next.nodes` are its targets' nodes still in the fleet), in
 * their batch order, unless it is refused (`refusesRollbackTo`); this one is marked rolled back and its live
 * intents are superseded. Its failed targets, their failure class and correlation id, and the reports stay
 * as they were.
 */
export function decideRollbackTo(
  rollout: RolloutState,
  next: NewRollout,
  live: readonly LiveIntent[],
  busy: BusyNodes,
  latest: LatestChanges,
  configTargets: ConfigTargets,
): Result<RolloutDecision> {
  const changed = new Set(rollbackNodes(rollout));
  const nodes = next.nodes.filter((n) => changed.has(n));
  const refused = refusesRollbackTo(rollout, nodes, latest);
  if (!refused.ok) return refused;
  const others = new Map([...busy].filter(([, r]) => r !== rollout.rolloutId));
  // The new rollout's first batch supersedes this one's intents on its nodes; the rest are superseded here.
  const firstBatch = new Set(nodes.slice(0, next.batchSize));
  const rest = live.filter((i) => !firstBatch.has(i.nodeId));
  const cleared = new Map([...configTargets].map(([n, t]) => [n, firstBatch.has(n) ? t : { ...t, live: [] }]));
  const created = decideCreateRollout({ ...next, nodes, rollbackOf: rollout.rolloutId }, others, cleared);
  if (!created.ok) return created;
  const data: RolloutRolledBackData = { rollout_id: rollout.rolloutId, rolled_back_by: next.rolloutId, config_version: next.configVersion };
  return ok({
    events: [event(rollout.rolloutId, 'RolloutRolledBack', data), ...rest.map((i) => supersede(i, null)), ...created.value.events],
    nodes: created.value.nodes,
  });
}
