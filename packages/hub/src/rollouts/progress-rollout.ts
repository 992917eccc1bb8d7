import {
  decideProgress,
  holdingTargets,
  ok,
  queueOpened,
  type ConfigTarget,
  type DispatchNode,
  type Mode,
  type RolloutState,
} from '@fleetplane/core';
import type { Selectable } from 'kysely';
import type { Command } from '../commands/pipeline.ts';
import type { HubConfig } from '../config.ts';
import { liveness } from '../http/views/node.ts';
import type { ConfigVersionsTable } from '../database/tables.ts';
import { together } from '../database/transaction-plan.ts';
import { holdingTargetsQuery, nodeHolds, type HoldRow } from '../reconcile/holds.ts';
import { modeSetting, operatorModeQuery } from '../reconcile/load.ts';
import { reconcileJob } from '../reconcile/queues.ts';
import { dispatchNode } from '../reconcile/dispatch-node.ts';
import { configTargetReads, configTargetsFrom, loadGateTargets, loadRollout, supersededRollouts, type ConfigTargetRows, type GateTargetRow } from './load.ts';
import { gateTimerJob, healthExecutorJob, rolloutJob } from './queues.ts';

interface Loaded {
  rollout: RolloutState | null;
  configTargets: Map<string, ConfigTarget>;
  /** The next batch's nodes as dispatch reads them, and the version's content its attempts carry. */
  dispatch: Map<string, DispatchNode>;
  /** When the rollout was created, read with the next batch (null when there is none): a batch it starts carries out that decision (core reconcile/ahead.ts). */
  createdAt: Date | null;
  spec: Record<string, unknown>;
  /** With a health gate: the current batch's targets as observed (SPEC L3). */
  gateTargets: GateTargetRow[];
  /** Other rollouts whose claims hold the current batch's nodes: what this batch's applies may retire. */
  holders: string[];
}

/** The rollouts other than `rolloutId` whose claims hold these nodes (SPEC I12), from holdingTargetsQuery's rows. */
function holdersOf(rows: readonly HoldRow[], nodeIds: readonly string[], rolloutId: string): string[] {
  return [...new Set(rows.filter((r) => nodeIds.includes(r.node_id) && r.rollout_id !== rolloutId).map((r) => r.rollout_id))];
}

export interface Progressed {
  started: string[];
  heldBy: string[];
  /** Nodes with attempts queued by this pass: their channel is offered them after the commit. */
  deliverable: string[];
}

/**
 * The rollout job: settles the current batch and, when its gate passes, starts the next (level-triggered).
 * A batch start queues its attempts in the same transaction; nodes that cannot take one now (draining,
 * another mode) get a reconcile job, which acts when they can.
 */
export function progressRollout(rolloutId: string, configuredMode: Mode, config: HubConfig): Command<Loaded, Progressed> {
  return {
    name: 'ProgressRollout',
    async load(trx) {
      const rollout = await loadRollout(trx, rolloutId, true, 'near');
      if (!rollout || rollout.state !== 'applying') return { rollout, configTargets: new Map(), dispatch: new Map(), createdAt: null, spec: {}, gateTargets: [], holders: [] };
      const current = rollout.targets.filter((t) => t.batch === rollout.currentBatch && t.state !== 'cancelled').map((t) => t.nodeId);
      const none: Loaded = { rollout, configTargets: new Map(), dispatch: new Map(), createdAt: null, spec: {}, gateTargets: rollout.gate ? await loadGateTargets(trx, current) : [], holders: [] };
      const next = rollout.targets.filter((t) => t.batch === rollout.currentBatch + 1 && t.state !== 'cancelled').map((t) => t.nodeId);
      if (next.length === 0) {
        const { rows } = current.length ? await trx.executeQuery(holdingTargetsQuery(trx, current).compile()) : { rows: [] };
        return { ...none, holders: holdersOf(rows, current, rolloutId) };
      }
      // What starting the next batch reads, in one round trip: its nodes and their intents locked (in the order
      // every command locks), the mode, the holds (of the current batch too), the version's content.
      const [nodes, intents, queued, [setting], holdRows, [version], [created]] = await together<
        [...ConfigTargetRows, { value: string | null }, HoldRow, Pick<Selectable<ConfigVersionsTable>, 'content' | 'format' | 'digest'>, { created_at: Date }]
      >(trx, [
        ...configTargetReads(trx, next),
        operatorModeQuery(trx, 'act'),
        holdingTargetsQuery(trx, [...current, ...next]),
        trx.selectFrom('config_versions').select(['content', 'format', 'digest']).where('config_version', '=', rollout.configVersion),
        trx.selectFrom('rollouts').select('created_at').where('rollout_id', '=', rolloutId),
      ]);
      if (!version) throw new Error(`rollout ${rollout.rolloutId} applies a version that is not stored: ${rollout.configVersion}`);
      const mode = modeSetting(setting, configuredMode).mode;
      const holds = nodeHolds(holdRows, next);
      return {
        ...none,
        rollout,
        configTargets: configTargetsFrom(nodes, intents, queued),
        dispatch: new Map(
          nodes.map((n) => [
            n.node_id,
            dispatchNode(n.node_id, n, mode, holds.get(n.node_id) ?? null),
          ]),
        ),
        createdAt: created!.created_at,
        spec: { content: version.content, format: version.format, digest: version.digest },
        holders: holdersOf(holdRows, current, rolloutId),
      };
    },
    decide({ rollout, configTargets, dispatch, createdAt, spec, gateTargets, holders }, now) {
      if (!rollout) return ok({ events: [], result: { started: [], heldBy: [], deliverable: [] } });
      const observations = gateTargets.map((t) => ({
        nodeId: t.nodeId,
        liveness: liveness(t.lastSeenAt, now, config),
        lastSeenAt: t.lastSeenAt.toISOString(),
        appliedVersion: t.appliedVersion,
        reportedAt: t.reportedAt?.toISOString() ?? null,
        streams: t.streams.map((s) => ({ streamId: s.streamId, observed: s.observed && { ...s.observed, reportedAt: s.observed.reportedAt.toISOString() } })),
      }));
      const { events, nodes, opened, wakeAt } = decideProgress(rollout, configTargets, { now, observations });
      // Intents are opened only by a next batch's start, which read the creation time.
      const queued = opened?.length ? queueOpened(opened, rollout.configVersion, rollout.rolloutId, createdAt!, spec, dispatch, now) : [];
      const deliverable = new Set(queued.flatMap((e) => (e.type === 'AttemptQueued' ? [e.data.node_id] : [])));
      const heldBy = rollout.state === 'applying' ? holdingTargets(rollout.targets) : [];
      return ok({
        events: [...events, ...queued],
        jobs: [
          ...nodes.filter((n) => !deliverable.has(n)).map((n) => reconcileJob(n)),
          ...(opened?.length ? supersededRollouts(configTargets, rolloutId) : []),
          // A batch whose every target was removed with its retired node has nothing to report, nor one whose
          // intent was blocked as it started (its node ahead of the log): the next pass settles it.
          ...((nodes.length === 0 && events.some((e) => e.type === 'RolloutBatchStarted')) || queued.some((e) => e.type === 'IntentBlocked') ? [rolloutJob(rolloutId)] : []),
          ...(wakeAt ? [gateTimerJob(rolloutId, wakeAt)] : []),
          // A gate that failed asking for a rollback: the health executor acts, as its own actor (SPEC L7).
          ...(events.some((e) => e.type === 'RolloutGateFailed' && e.data.on_unhealthy === 'rollback') ? [healthExecutorJob(rolloutId)] : []),
          // A claim is retired by its holder's own pass (SPEC I7), which nothing else asks for once that
          // rollout has ended: each pass of this batch asks, so an apply here that succeeds releases the node.
          ...holders.map((h) => rolloutJob(h)),
        ],
        result: { started: nodes, heldBy, deliverable: [...deliverable] },
      });
    },
  };
}
