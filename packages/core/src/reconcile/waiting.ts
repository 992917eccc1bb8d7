import { heldBack, type NodeHold } from '../recovery/hold.ts';
import { aheadOfLogMessage, NODE_AHEAD_OF_LOG } from './ahead.ts';
import type { AttemptStateName } from './attempt.ts';
import { modeDispatches } from './dispatch.ts';
import { operationFor, type IntentState } from './intent.ts';
import type { Mode } from './mode.ts';
import { proves, type ObservedStream } from './observed.ts';
import { unheardMessage } from './unheard.ts';

/**
 * What a live intent, or a rollout target, waits on now (issue 22). The ids name the blocking thing: the
 * node, the stream and its intent, the attempt; `at` is when a wait ends by itself (a retry, a lease).
 */
export const WAIT_KINDS = [
  'node_unregistered', // the node never registered: its agent must start (A1)
  'node_draining', // no new attempts while draining (D1)
  'node_offline', // the node is silent: nothing it must take or report comes
  'node_stale',
  'mode', // the node's mode does not dispatch this kind of intent (B1, B2)
  'database_restored', // the node has not reported since the Hub's database was restored: nothing is sent until it does
  'retry', // a temporary failure's retry is due at `at` (C1)
  'placement', // a split placement waits for a node to register (E1)
  'job', // a queued job has still to run: the node's reconcile pass, or the rollout's pass
  'attempt_queued', // the attempt waits for the node's agent to take it
  'attempt_dispatched', // the node holds the attempt: its result is due before the lease ends at `at`
  'ambiguous_attempt', // the attempt's result was lost: a newer report decides (C4, C5)
  'report', // the attempt succeeded: a report must prove it (A9, A10, A12)
  'stream_blocked', // configuration waits for a stream on the node that is blocked (A10, C2)
  'stream_converging', // configuration waits for a stream on the node not yet at its desired state (A10)
  'new_generation', // the intent is blocked: only a new generation resumes (C2)
  'batch', // a rollout target waits for the current batch to converge (G1)
  'health_gate', // a rollout target waits for the converged current batch's health gate to end its soak (L3)
  'recovery_hold', // a restore in flight or a claim holds the rollout: no new batch (I5); a claim holds the node (I12)
  'rollout_paused', // a rollout target waits for the rollout to be resumed (G2)
] as const;
export type WaitKind = (typeof WAIT_KINDS)[number];

export interface WaitingOn {
  kind: WaitKind;
  message: string;
  nodeId: string | null;
  streamId: string | null;
  intentId: string | null;
  attemptId: string | null;
  at: Date | null;
}

/** The intent as the intents projection holds it, with its failure. */
export type WaitIntent = Pick<
  IntentState,
  | 'intentId'
  | 'kind'
  | 'streamId'
  | 'nodeId'
  | 'generation'
  | 'desiredState'
  | 'actionId'
  | 'configVersion'
  | 'recoveryRef'
  | 'state'
  | 'retryCount'
  | 'nextRetryAt'
  | 'awaiting'
  | 'overridesHold'
> & { failureClass: string | null; failureCode: string | null };

/** The intent's node, null when it never registered; liveness and the effective mode as read now. */
export interface WaitNode {
  nodeId: string;
  maintenance: 'active' | 'draining';
  liveness: 'online' | 'stale' | 'offline';
  lastSeenAt: Date;
  mode: Mode;
  appliedConfigVersion: string | null;
  /** A recovery claim that may have moved the node (I12), or null. */
  hold: NodeHold | null;
  /** The time the Hub's database was found restored, while the node has not reported since (unheard.ts), or null. */
  unheardSince: Date | null;
}

/** The intent's newest attempt. */
export interface WaitAttempt {
  attemptId: string;
  operation: string;
  state: AttemptStateName;
  leaseExpiresAt: Date | null;
}

/**
 * For a configuration intent, each stream placed on its node (A10): the newest lifecycle intent there and
 * what the node reports of the stream.
 */
export interface WaitStream {
  intent: Pick<WaitIntent, 'intentId' | 'streamId' | 'generation' | 'desiredState' | 'actionId' | 'state' | 'failureClass' | 'failureCode'>;
  observed: ObservedStream | undefined;
}

export interface IntentWaitInput {
  intent: WaitIntent;
  node: WaitNode | null;
  attempt: WaitAttempt | null;
  streams: readonly WaitStream[];
  /** For a split placement: its nodes that have not registered (E1). */
  placementWaiting: readonly string[];
}

const NONE = { nodeId: null, streamId: null, intentId: null, attemptId: null, at: null };

export const waiting = (kind: WaitKind, message: string, ids: Partial<Omit<WaitingOn, 'kind' | 'message'>> = {}): WaitingOn => ({ kind, message, ...NONE, ...ids });

const failure = (i: Pick<WaitIntent, 'failureClass' | 'failureCode'>) => [i.failureClass, i.failureCode].filter(Boolean).join(' ') || 'no failure recorded';

const wanted = (i: Pick<WaitIntent, 'generation' | 'desiredState'>) => `generation ${i.generation} ${i.desiredState}`;

/** A silent node: nothing it must take or report comes. */
const livenessWait = (node: WaitNode): WaitingOn | null =>
  node.liveness === 'online' ? null : waiting(`node_${node.liveness}`, `node ${node.nodeId} is ${node.liveness}: last seen at ${node.lastSeenAt.toISOString()}`, { nodeId: node.nodeId });

/**
 * What the node must let through before anything is sent to it: drain (D1), liveness, its mode (B1, B2), a
 * report since the Hub's database was restored (unheard.ts), and a recovery claim that holds it, which only an
 * operator's explicit action passes (I12, I13).
 */
function nodeGate(intent: WaitIntent, node: WaitNode): WaitingOn | null {
  const nodeId = node.nodeId;
  if (node.maintenance === 'draining') return waiting('node_draining', `node ${nodeId} is draining: it gets no new attempts until undrained`, { nodeId });
  const silent = livenessWait(node);
  if (silent) return silent;
  if (!modeDispatches(node.mode, intent.kind)) {
    const needs = intent.kind === 'configuration' ? 'configuration mode' : 'lifecycle or configuration mode';
    return waiting('mode', `node ${nodeId} is in ${node.mode} mode: ${intent.kind} intents are dispatched in ${needs} only`, { nodeId });
  }
  if (node.unheardSince !== null) return waiting('database_restored', unheardMessage(nodeId, node.unheardSince), { nodeId });
  if (heldBack({ overridesHold: intent.overridesHold, operation: operationFor(intent) }, node.hold)) {
    const { rolloutId, claim } = node.hold!;
    return waiting(
      'recovery_hold',
      `node ${nodeId} is held by the ${claim} recovery claim of rollout ${rolloutId}: nothing is sent there on its own until the claim is retired (a restore, or a newer apply that succeeds); a write with override_hold goes now`,
      { nodeId },
    );
  }
  return null;
}

/** SPEC A10: the first stream on the node that keeps a configuration intent from converging. */
function streamWait(nodeId: string, streams: readonly WaitStream[]): WaitingOn | null {
  const open = streams.find((s) => !proves(s.observed, s.intent));
  if (!open) return null;
  const { intent: s, observed } = open;
  const ids = { nodeId, streamId: s.streamId, intentId: s.intentId };
  const reported = observed ? `reports generation ${observed.generation} ${observed.state}` : 'does not report it';
  if (s.state === 'blocked') {
    return waiting(
      'stream_blocked',
      `stream ${s.streamId} is blocked on node ${nodeId} (${failure(s)}): configuration converges only with every stream on the node at its desired state; write a new generation of ${s.streamId}, or stop it`,
      ids,
    );
  }
  if (observed && observed.generation > s.generation) {
    // Only a write the log no longer holds made that generation: nothing the Hub sends moves the node back.
    return waiting(
      'stream_converging',
      `stream ${s.streamId} on node ${nodeId} is at generation ${s.generation} here, but the node reports generation ${observed.generation}: a write this Hub's log does not hold (its database restored from a backup?); write a new generation of ${s.streamId}`,
      ids,
    );
  }
  const progress = s.state === 'converged' ? 'converged before, but the node' : `is ${s.state} to ${wanted(s)}; the node`;
  return waiting('stream_converging', `stream ${s.streamId} on node ${nodeId} ${progress} ${reported}`, ids);
}

/**
 * Why a live intent makes no progress now, or null when it is done (converged, superseded). Read in this
 * order: what ended it (blocked), what no Hub action can move (an unregistered node, a lost result), the
 * attempt in flight, the node's gates, a retry's time, a split placement, the queued pass; a converging
 * intent waits for the report that proves it, and a configuration intent then for its node's streams.
 */
export function intentWaitsOn({ intent, node, attempt, streams, placementWaiting }: IntentWaitInput, now: Date): WaitingOn | null {
  const self = { intentId: intent.intentId, nodeId: intent.nodeId };
  switch (intent.state) {
    case 'converged':
    case 'superseded':
      return null;
    case 'blocked':
      if (intent.failureCode === NODE_AHEAD_OF_LOG) return waiting('new_generation', aheadOfLogMessage(intent.nodeId, operationFor(intent), intent.configVersion), self);
      return waiting('new_generation', `blocked by a permanent failure (${failure(intent)}): only a new generation resumes`, self);
  }
  if (!node) return waiting('node_unregistered', `node ${intent.nodeId} has not registered: the intent waits for its agent`, { nodeId: intent.nodeId });
  if (intent.state === 'ambiguous') {
    const after = intent.awaiting ? ` newer than report ${intent.awaiting.seq} of boot ${intent.awaiting.bootId}` : '';
    const restore = operationFor(intent) === 'restore' ? '; a restore is not sent again on its own (I5)' : '';
    const lost = attempt ? `the result of attempt ${attempt.attemptId} was lost` : 'an attempt\'s result was lost';
    return waiting('ambiguous_attempt', `${lost}: waiting for a report from node ${node.nodeId}${after}${restore}`, {
      ...self,
      attemptId: attempt?.attemptId ?? null,
    });
  }
  if (attempt?.state === 'dispatched') {
    return waiting('attempt_dispatched', `node ${node.nodeId} took attempt ${attempt.attemptId} (${attempt.operation}): its result is due before the lease ends`, {
      ...self,
      attemptId: attempt.attemptId,
      at: attempt.leaseExpiresAt,
    });
  }
  if (attempt?.state === 'queued') {
    return (
      nodeGate(intent, node) ??
      waiting('attempt_queued', `attempt ${attempt.attemptId} (${attempt.operation}) is queued for node ${node.nodeId}'s agent to take`, { ...self, attemptId: attempt.attemptId })
    );
  }
  if (intent.state === 'converging') {
    // The attempt succeeded (A12): a report proves it, and a configuration also waits for the node's streams.
    const silent = livenessWait(node);
    if (silent) return silent;
    if (intent.kind === 'configuration' && node.appliedConfigVersion === intent.configVersion) {
      const stream = streamWait(node.nodeId, streams);
      if (stream) return stream;
    }
    const shows = intent.kind === 'configuration' ? `configuration ${intent.configVersion} applied` : `stream ${intent.streamId} at ${wanted(intent)}`;
    return waiting('report', `waiting for a report from node ${node.nodeId} showing ${shows}`, self);
  }
  const gate = nodeGate(intent, node);
  if (gate) return gate;
  if (intent.state === 'retrying' && intent.nextRetryAt && intent.nextRetryAt.getTime() > now.getTime()) {
    return waiting('retry', `retry ${intent.retryCount} after a temporary failure (${failure(intent)})`, { ...self, at: intent.nextRetryAt });
  }
  const [missing] = placementWaiting;
  if (missing !== undefined && intent.desiredState !== 'stopped') {
    return waiting('placement', `the split placement of stream ${intent.streamId} waits for node ${missing} to register`, { nodeId: missing, streamId: intent.streamId });
  }
  return waiting('job', `node ${node.nodeId}'s reconcile pass is queued: it sends the attempt`, { nodeId: node.nodeId });
}
