import type { FleetEvent } from '../events/fleet-event.ts';
import { intentStream, type IntentBlockedData } from './events.ts';
import type { IntentState, Operation } from './intent.ts';

/** The failure of a configuration intent not sent to a node ahead of the log. */
export const NODE_AHEAD_OF_LOG = 'node_ahead_of_log';

/**
 * A node reporting an applied configuration version the log does not know was changed by something the log
 * lost (a Hub restored from a backup). Since its first such report: its configuration generation then, and
 * when the report was recorded.
 */
export interface NodeAhead {
  generation: number;
  at: Date;
}

/**
 * A configuration intent at or below the node's generation then was opened before that report, in ignorance
 * of what the node now holds: sending it (a rollout in flight at the backup, its lost answer reopened, C5)
 * would put an older version back over the later one unasked. One opened since (a resume, a new rollout, an
 * apply) goes.
 */
export const behindNode = (intent: Pick<IntentState, 'kind' | 'generation'>, ahead: NodeAhead | null): boolean =>
  intent.kind === 'configuration' && ahead !== null && intent.generation <= ahead.generation;

/**
 * A batch that a rollout created before the report starts on the node carries out that older decision, though
 * its intent is opened after: it is not sent either. The operator's resume applies over it (its intent goes).
 */
export const batchBehindNode = (rolloutCreatedAt: Date, ahead: NodeAhead | null): boolean => ahead !== null && rolloutCreatedAt.getTime() < ahead.at.getTime();

/** Why such an intent was not sent, and what applies over the node's version: its failure message and what it waits on. */
export const aheadOfLogMessage = (nodeId: string, operation: Operation, configVersion: string | null): string =>
  `node ${nodeId} reports a configuration version this Hub's log does not know (applied after the backup its database was restored from?): ` +
  `this ${operation} of ${configVersion}, decided before that report, is not sent; resume the rollout, or roll out a version, to apply over it`;

/**
 * The intent ends without anything sent: blocked, so its rollout pauses on it as on any failed target (G2). An
 * attempt of it still queued (one a backup held) is withdrawn with it, never delivered.
 */
export function blockBehindNode(nodeId: string, intentId: string, operation: Operation, configVersion: string | null): FleetEvent {
  const data: IntentBlockedData = { intent_id: intentId, failure_class: 'permanent', code: NODE_AHEAD_OF_LOG, message: aheadOfLogMessage(nodeId, operation, configVersion) };
  return { streamId: intentStream(intentId), type: 'IntentBlocked', data };
}
