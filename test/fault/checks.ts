import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { isNewerReport, type ReportMark } from '../../packages/core/src/reconcile/intent.ts';
import type { Db } from '../../packages/hub/src/database/connect.ts';
import { verifyChain } from '../../packages/hub/src/event-store/verify-chain.ts';
import { allProjections } from '../../packages/hub/src/projections/all.ts';
import { verifyProjections } from '../../packages/hub/src/projections/verify.ts';
import type { FleetLedger, FleetNode } from './fleet.ts';
import type { Acknowledged, OperatorLog } from './operator.ts';

interface LoggedEvent {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  data: any;
}

const eventsOf = async (db: Db, types: string[]): Promise<LoggedEvent[]> =>
  (
    await sql<LoggedEvent>`
      SELECT position, stream_id, stream_version, type, data FROM events
      WHERE type = ANY(${types}) ORDER BY stream_id, stream_version`.execute(db)
  ).rows;

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/**
 * Where the log holds each node's reports, by `node boot seq`. A report is stored with its sequence alone
 * (NodeReported version 2): its node is its stream's, its boot the one the node registered last before it.
 */
function reportPositions(events: readonly LoggedEvent[]): Map<string, number> {
  const positions = new Map<string, number>();
  for (const [stream, history] of groupBy(events.filter((e) => e.stream_id.startsWith('node:')), (e) => e.stream_id)) {
    const nodeId = stream.slice('node:'.length);
    let boot: string | null = null;
    for (const e of history) {
      if (e.type === 'NodeRegistered') boot = e.data.boot_id;
      if (e.type === 'NodeReported') positions.set(`${nodeId} ${boot} ${e.data.seq}`, e.position);
    }
  }
  return positions;
}

/** The values with each run of equal neighbours kept once. */
const collapsed = <T>(values: readonly T[]): T[] => values.filter((v, i) => i === 0 || !isDeepStrictEqual(v, values[i - 1]));

/**
 * Every acknowledged write is in the log exactly as answered, and its effect in the projections; nothing was
 * written that was not acknowledged, and no write resent after a lost answer was made twice (SPEC A4).
 */
export async function acknowledgedWriteProblems(db: Db, acknowledged: readonly Acknowledged[]): Promise<string[]> {
  const problems: string[] = [];
  const of = <K extends Acknowledged['kind']>(kind: K) => acknowledged.filter((a): a is Extract<Acknowledged, { kind: K }> => a.kind === kind);

  // Desired state: one StreamDesired per acknowledged write or restart, in order, with the answered generation.
  const desiredEvents = groupBy(await eventsOf(db, ['StreamDesired']), (e) => e.data.stream_id);
  const streamRows = new Map((await db.selectFrom('streams').selectAll().execute()).map((r) => [r.stream_id, r]));
  for (const [streamId, writes] of groupBy([...of('stream'), ...of('restart')], (a) => a.stream_id)) {
    writes.sort((a, b) => a.generation - b.generation);
    const logged = desiredEvents.get(streamId) ?? [];
    if (logged.length !== writes.length) {
      problems.push(`stream ${streamId}: ${writes.length} writes acknowledged, ${logged.length} StreamDesired events (generations ${logged.map((e) => e.data.generation).join(',')})`);
    }
    for (const [i, write] of writes.entries()) {
      const event = logged[i]?.data;
      const expected = write.kind === 'stream' ? { ...write.desired, action_id: null } : {};
      const matches =
        event?.generation === write.generation &&
        (write.kind === 'restart'
          ? typeof event.action_id === 'string'
          : isDeepStrictEqual({ desired_state: event.desired_state, spec: event.spec, placement: event.placement, action_id: event.action_id }, expected));
      if (!matches) problems.push(`stream ${streamId}: acknowledged ${write.kind} at generation ${write.generation} logged as ${JSON.stringify(event ?? null)}`);
    }
    const last = writes.at(-1)!;
    const lastDesired = writes.filter((w) => w.kind === 'stream').at(-1)?.desired;
    const row = streamRows.get(streamId);
    const projected = row && { generation: row.generation, desired_state: row.desired_state, spec: row.spec, placement: row.placement };
    if (!isDeepStrictEqual(projected, { generation: last.generation, ...lastDesired })) {
      problems.push(`stream ${streamId}: the streams table holds ${JSON.stringify(projected)}, the last acknowledged write was generation ${last.generation} ${JSON.stringify(lastDesired)}`);
    }
  }

  // Labels and maintenance: the log's sequence of values is the acknowledged one (a resent replacement may
  // repeat a value, never skip or add one), and the nodes table holds the last.
  const nodeRows = new Map((await db.selectFrom('nodes').selectAll().execute()).map((r) => [r.node_id, r]));
  const labelEvents = groupBy(await eventsOf(db, ['NodeLabelsReplaced']), (e) => e.data.node_id);
  for (const [nodeId, writes] of groupBy(of('labels'), (a) => a.node_id)) {
    const logged = collapsed((labelEvents.get(nodeId) ?? []).map((e) => e.data.after));
    const expected = collapsed(writes.map((w) => w.labels));
    if (!isDeepStrictEqual(logged, expected)) problems.push(`node ${nodeId}: labels acknowledged ${JSON.stringify(expected)}, logged ${JSON.stringify(logged)}`);
    if (!isDeepStrictEqual(nodeRows.get(nodeId)?.labels, writes.at(-1)!.labels)) {
      problems.push(`node ${nodeId}: the nodes table holds labels ${JSON.stringify(nodeRows.get(nodeId)?.labels)}, last acknowledged ${JSON.stringify(writes.at(-1)!.labels)}`);
    }
  }
  const maintenanceEvents = groupBy(await eventsOf(db, ['NodeDrained', 'NodeUndrained']), (e) => e.data.node_id);
  for (const [nodeId, writes] of groupBy(of('maintenance'), (a) => a.node_id)) {
    const logged = (maintenanceEvents.get(nodeId) ?? []).map((e) => (e.type === 'NodeDrained' ? 'draining' : 'active'));
    // Draining a draining node (or undraining an active one) records nothing.
    const expected = collapsed(['active', ...writes.map((w) => w.maintenance)]).slice(1);
    if (!isDeepStrictEqual(logged, expected)) problems.push(`node ${nodeId}: maintenance acknowledged ${expected.join(',')}, logged ${logged.join(',')}`);
    if (nodeRows.get(nodeId)?.maintenance !== writes.at(-1)!.maintenance) {
      problems.push(`node ${nodeId}: the nodes table says ${nodeRows.get(nodeId)?.maintenance}, last acknowledged ${writes.at(-1)!.maintenance}`);
    }
  }

  // Configuration versions and rollouts: each acknowledged one created exactly once, none unacknowledged.
  const created = (await eventsOf(db, ['ConfigVersionCreated'])).map((e) => e.data.config_version as string);
  const versions = new Set((await db.selectFrom('config_versions').select('config_version').execute()).map((r) => r.config_version));
  const ackedVersions = of('config_version').map((a) => a.config_version);
  if (!isDeepStrictEqual([...created].sort(), [...ackedVersions].sort())) {
    problems.push(`configuration versions acknowledged ${ackedVersions.join(',')}, created ${created.join(',')}`);
  }
  for (const v of ackedVersions) if (!versions.has(v)) problems.push(`configuration version ${v} acknowledged, missing from config_versions`);
  const rolloutsLogged = (await eventsOf(db, ['RolloutCreated'])).map((e) => e.data);
  const rolloutRows = new Map((await db.selectFrom('rollouts').selectAll().execute()).map((r) => [r.rollout_id, r]));
  const targetRows = groupBy(await db.selectFrom('rollout_targets').select(['rollout_id', 'node_id']).execute(), (r) => r.rollout_id);
  if (rolloutsLogged.length !== of('rollout').length) {
    problems.push(`${of('rollout').length} rollouts acknowledged, ${rolloutsLogged.length} created: ${rolloutsLogged.map((r) => r.rollout_id).join(',')}`);
  }
  for (const rollout of of('rollout')) {
    const event = rolloutsLogged.find((r) => r.rollout_id === rollout.rollout_id);
    const targets = (event?.targets ?? []).map((t: { node_id: string }) => t.node_id).sort();
    if (!event || event.config_version !== rollout.config_version || !isDeepStrictEqual(targets, [...rollout.nodes].sort())) {
      problems.push(`rollout ${rollout.rollout_id} acknowledged for ${rollout.config_version} on ${rollout.nodes.join(',')}, logged as ${JSON.stringify(event ?? null)}`);
    }
    const projectedTargets = (targetRows.get(rollout.rollout_id) ?? []).map((r) => r.node_id).sort();
    if (!rolloutRows.has(rollout.rollout_id) || !isDeepStrictEqual(projectedTargets, [...rollout.nodes].sort())) {
      problems.push(`rollout ${rollout.rollout_id}: projected ${rolloutRows.has(rollout.rollout_id) ? `with targets ${projectedTargets.join(',')}` : 'nowhere'}`);
    }
  }
  // Pauses and resumes: exactly the acknowledged ones, in order (a paused rollout refuses another pause).
  const actionEvents = groupBy(
    (await eventsOf(db, ['RolloutPaused', 'RolloutResumed'])).filter((e) => e.type === 'RolloutResumed' || e.data.reason === 'operator'),
    (e) => e.data.rollout_id,
  );
  for (const [rolloutId, actions] of groupBy(of('rollout_action'), (a) => a.rollout_id)) {
    const logged = (actionEvents.get(rolloutId) ?? []).map((e) => (e.type === 'RolloutPaused' ? 'pause' : 'resume'));
    const expected = actions.map((a) => a.action);
    if (!isDeepStrictEqual(logged, expected)) problems.push(`rollout ${rolloutId}: ${expected.join(',')} acknowledged, ${logged.join(',')} logged`);
  }
  return problems;
}

/**
 * Nothing was sent or executed twice (SPEC C4, C5, C6). At the nodes: each attempt delivered once and
 * executed once, and each restart action took effect at most once per node. In the log: each attempt
 * dispatched once, only after being recorded as dispatched, and an intent whose attempt went ambiguous got
 * another attempt only after a report newer than the one it waited for, which the log holds.
 */
export async function deliveredTwiceProblems(db: Db, ledger: FleetLedger): Promise<string[]> {
  const problems: string[] = [];
  for (const [id, deliveries] of groupBy(ledger.deliveries, (d) => d.attempt_id)) {
    if (deliveries.length > 1) problems.push(`attempt ${id} delivered ${deliveries.length} times (to ${deliveries.map((d) => d.node_id).join(',')})`);
  }
  for (const [id, runs] of groupBy(ledger.executions, (x) => x.attempt_id)) {
    if (runs.length > 1) problems.push(`attempt ${id} executed ${runs.length} times`);
  }
  const restarts = ledger.executions.filter((x) => x.operation === 'job_restart' && x.took_effect);
  for (const [key, runs] of groupBy(restarts, (x) => `${x.node_id} ${x.action_id}`)) {
    if (runs.length > 1) problems.push(`restart ${key} took effect ${runs.length} times (attempts ${runs.map((r) => r.attempt_id).join(',')})`);
  }

  const events = await eventsOf(db, ['IntentOpened', 'AttemptQueued', 'AttemptDispatched', 'AttemptAmbiguous', 'IntentReopened', 'NodeRegistered', 'NodeReported']);
  const dispatched = groupBy(
    events.filter((e) => e.type === 'AttemptDispatched'),
    (e) => e.data.attempt_id,
  );
  for (const [id, times] of dispatched) if (times.length > 1) problems.push(`attempt ${id} dispatched ${times.length} times`);
  for (const d of ledger.deliveries) if (!dispatched.has(d.attempt_id)) problems.push(`attempt ${d.attempt_id} reached ${d.node_id} but was never recorded as dispatched`);

  const reports = reportPositions(events);
  for (const [stream, history] of groupBy(events.filter((e) => e.stream_id.startsWith('intent:')), (e) => e.stream_id)) {
    const nodeId = history.find((e) => e.type === 'IntentOpened')?.data.node_id;
    // Set by an ambiguity the intent waits on: another attempt needs a report newer than this mark first.
    let waiting: { since: number; awaiting: ReportMark | null } | null = null;
    for (const e of history) {
      if (e.type === 'AttemptAmbiguous' && e.data.intent_waits) waiting = { since: e.position, awaiting: e.data.awaiting };
      if (e.type === 'IntentReopened' && waiting) {
        const mark: ReportMark = e.data.report;
        const reportedAt = reports.get(`${nodeId} ${mark.bootId} ${mark.seq}`);
        if (!isNewerReport(mark, waiting.awaiting)) problems.push(`${stream} reopened by report ${JSON.stringify(mark)}, not newer than ${JSON.stringify(waiting.awaiting)}`);
        else if (reportedAt === undefined || reportedAt < waiting.since) problems.push(`${stream} reopened by report ${JSON.stringify(mark)}, which the log does not hold after the ambiguity`);
        else waiting = null;
      }
      if (e.type === 'AttemptQueued' && waiting) problems.push(`${stream}: attempt ${e.data.attempt_id} queued while its intent waited for a fresh report (ambiguous since position ${waiting.since})`);
    }
  }
  return problems;
}

/**
 * What is not yet settled: intents neither converged, superseded nor blocked with a failure class (pending,
 * converging, retrying, ambiguous), attempts still queued or dispatched, rollouts not converged. Empty once
 * the run has settled.
 */
export async function unsettled(db: Db): Promise<string[]> {
  const intents = await db
    .selectFrom('intents')
    .select(['intent_id', 'kind', 'stream_id', 'node_id', 'generation', 'state', 'failure_class'])
    .where((eb) => eb.and([eb('state', 'not in', ['converged', 'superseded']), eb.or([eb('state', '<>', 'blocked'), eb('failure_class', 'is', null)])]))
    .execute();
  const attempts = await db.selectFrom('attempts').select(['attempt_id', 'node_id', 'operation', 'state']).where('state', 'in', ['queued', 'dispatched']).execute();
  const rollouts = await db.selectFrom('rollouts').select(['rollout_id', 'state', 'current_batch']).where('state', '<>', 'converged').execute();
  return [
    ...intents.map((i) => `intent ${i.intent_id} (${i.kind} ${i.stream_id ?? 'configuration'} on ${i.node_id}, generation ${i.generation}) is ${i.state}`),
    ...attempts.map((a) => `attempt ${a.attempt_id} (${a.operation} on ${a.node_id}) is ${a.state}`),
    ...rollouts.map((r) => `rollout ${r.rollout_id} is ${r.state} at batch ${r.current_batch}`),
  ];
}

/**
 * The Hub's convergence is true at the nodes: for each target's newest intent that converged, the simulated
 * node runs that generation in that state (with the restart's action), or holds that configuration version.
 */
export async function convergedButNotTrueProblems(db: Db, fleet: readonly FleetNode[]): Promise<string[]> {
  const problems: string[] = [];
  const newest = await sql<{ kind: string; stream_id: string | null; node_id: string; generation: number; desired_state: string | null; action_id: string | null; config_version: string | null }>`
    SELECT DISTINCT ON (kind, stream_id, node_id) kind, stream_id, node_id, generation, desired_state, action_id, config_version
    FROM intents WHERE state = 'converged'
      AND NOT EXISTS (SELECT 1 FROM intents later WHERE later.kind = intents.kind AND later.node_id = intents.node_id
                      AND later.stream_id IS NOT DISTINCT FROM intents.stream_id AND later.generation > intents.generation)
    ORDER BY kind, stream_id, node_id, generation DESC`.execute(db);
  for (const node of fleet) {
    const streams = new Map((await node.sim.observe()).map((s) => [s.stream_id, s]));
    const configuration = await node.sim.configuration();
    for (const intent of newest.rows.filter((i) => i.node_id === node.nodeId)) {
      if (intent.kind === 'configuration') {
        if (configuration.applied_version !== intent.config_version) problems.push(`${node.nodeId}: configuration converged at ${intent.config_version}, the node holds ${configuration.applied_version}`);
        continue;
      }
      const s = streams.get(intent.stream_id!);
      const actionHolds = intent.action_id === null || s?.last_action_id === intent.action_id;
      if (!s || s.generation !== intent.generation || s.state !== intent.desired_state || !actionHolds) {
        problems.push(`${node.nodeId}: ${intent.stream_id} converged at generation ${intent.generation} ${intent.desired_state}, the node runs ${JSON.stringify(s ?? null)}`);
      }
    }
  }
  return problems;
}

/**
 * Every check of a finished run, by name, each empty when it holds: what was left unsettled (`stuck`) and
 * converged but is not so at the nodes (`untrue`), both found while the fleet ran; answers no correct Hub
 * gives, acknowledged writes lost or made twice, anything delivered or executed twice, a broken hash chain
 * (SPEC J2) and a projection that does not rebuild to the live tables (J3). Run once nothing writes any more.
 */
export async function runProblems(db: Db, run: { log: OperatorLog; ledger: FleetLedger; stuck: string[]; untrue: string[] }) {
  return {
    stuck: run.stuck,
    untrue: run.untrue,
    answers: run.log.problems,
    acknowledged: await acknowledgedWriteProblems(db, run.log.acknowledged),
    twice: await deliveredTwiceProblems(db, run.ledger),
    chain: await verifyChain(db),
    projections: await verifyProjections(db, allProjections),
  };
}

/** What runProblems answers for a run in which everything held. */
export const NO_PROBLEMS = { stuck: [], untrue: [], answers: [], acknowledged: [], twice: [], chain: [], projections: [] };
