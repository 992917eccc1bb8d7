import { hash } from 'node:crypto';
import type { FleetEvent } from '../events/fleet-event.ts';
import { nodeStream } from '../events/streams.ts';
import { fail, ok, type Result } from '../result.ts';
import { intentStream, type IntentConvergedData, type IntentReopenedData } from './events.ts';
import { isNewerReport, operationFor, type IntentState, type ReportMark } from './intent.ts';
import type { Report } from './full-report.ts';
import { proves, type ObservedStream } from './observed.ts';
import { reportedData, type ReportContent } from './reported.ts';

export interface ReportingNode {
  nodeId: string;
  /** The boot the agent registered last: the only one whose reports are current. */
  bootId: string;
  lastReport: ReportMark | null;
  digest: string | null;
}

export interface ReportDecision {
  events: FleetEvent[];
  /** True when intents were reopened and the node must be reconciled again. */
  reconcile: boolean;
  /** Rollouts whose configuration intents this report converged: their progression must run. */
  rollouts: string[];
}

/** The newest lifecycle intent of a stream on the node: what a configuration intent waits for (A10). */
export type StreamTarget = Pick<IntentState, 'streamId' | 'generation' | 'desiredState' | 'actionId'>;

/**
 * SPEC A10: a configuration intent is proven when the node reports the target version and every stream
 * placed on it is at its desired generation and state. A restore is proven by the version alone: the streams
 * it may have disturbed wait behind the claim it would retire (I12), and waiting for them would hold it forever.
 */
export function provesConfiguration(report: Report, intent: IntentState, streams: readonly StreamTarget[], observed: ReadonlyMap<string, ObservedStream>): boolean {
  if (report.configuration.applied_version !== intent.configVersion) return false;
  if (intent.recoveryRef !== null) return true;
  return streams.every((s) => s.streamId !== null && proves(observed.get(s.streamId), s));
}

/** The content of a report without its sequence: equal digests mean the node's state did not change. */
export function reportDigest(report: ReportContent): string {
  const streams = [...report.streams].sort((a, b) => (a.stream_id < b.stream_id ? -1 : 1));
  return hash('sha256', JSON.stringify({ streams, configuration: report.configuration }));
}

/**
 * A full report is observation: it never changes desired state (SPEC A7). It is ignored when it does not
 * come after the node's last one in the same boot, or comes from a boot other than the registered one (A8). It converges every live intent it proves (A9, A10)
 * and reopens an ambiguous intent it does not prove when it is newer than the one the intent waits for (C5),
 * unless that intent is a restore (I5).
 * `streams` is read only when a configuration intent is live: the newest lifecycle intent of each stream.
 */
export function decideReport(
  node: ReportingNode,
  report: Report,
  intents: readonly IntentState[],
  streams: readonly StreamTarget[] = [],
): Result<ReportDecision> {
  const mark: ReportMark = { bootId: report.boot_id, seq: report.report_seq };
  if (node.lastReport && node.lastReport.bootId === mark.bootId && mark.seq <= node.lastReport.seq) {
    return fail('stale_report', `report ${mark.seq} of boot ${mark.bootId} is not after ${node.lastReport.seq}`);
  }
  // An agent registers at every start, so a new boot's reports follow its registration; a report of any
  // other boot was sent before the node restarted and arrives late.
  if (mark.bootId !== node.bootId) {
    return fail('stale_report', `report of boot ${mark.bootId}, but the node registered boot ${node.bootId}`);
  }
  const repeated = reportDigest(report) === node.digest;
  const events: FleetEvent[] = [{ streamId: nodeStream(node.nodeId), type: 'NodeReported', data: { ...reportedData(report, repeated) } }];
  const observed = new Map(report.streams.map((s) => [s.stream_id, s]));
  let reconcile = false;
  const rollouts = new Set<string>();
  for (const intent of intents) {
    if (intent.state === 'converged' || intent.state === 'superseded') continue;
    const proven =
      intent.kind === 'configuration'
        ? provesConfiguration(report, intent, streams, observed)
        : intent.streamId !== null && proves(observed.get(intent.streamId), intent);
    if (proven) {
      const data: IntentConvergedData = { intent_id: intent.intentId, report: mark };
      events.push({ streamId: intentStream(intent.intentId), type: 'IntentConverged', data });
      if (intent.rolloutId !== null) rollouts.add(intent.rolloutId);
    } else if (intent.state === 'ambiguous' && operationFor(intent) !== 'restore' && isNewerReport(mark, intent.awaiting)) {
      const data: IntentReopenedData = { intent_id: intent.intentId, report: mark };
      events.push({ streamId: intentStream(intent.intentId), type: 'IntentReopened', data });
      reconcile = true;
    }
  }
  return ok({ events, reconcile, rollouts: [...rollouts] });
}
