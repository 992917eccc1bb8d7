import { decideResult, ok, retiredRefusal, type AttemptResult, type AttemptState, type IntentState, type ReportMark, type RetryPolicy } from '@fleetplane/core';
import type { Kysely, Selectable } from 'kysely';
import type { Command, Committed } from '../commands/pipeline.ts';
import { keyed, namedBy, prepared, together } from '../database/transaction-plan.ts';
import type { AttemptsTable, IntentsTable, NodesTable, Tables } from '../database/tables.ts';
import { toAttempt, toIntent } from './load.ts';
import { rolloutJob } from '../rollouts/queues.ts';
import { reconcileJob } from './queues.ts';

interface Loaded {
  attempt: AttemptState | null;
  intent: IntentState | null;
  nodeReport: ReportMark | null;
  /** Set when the calling node was retired: its credential is refused (issue 22). Read only when its attempt was not found. */
  retiredAt: Date | null;
}

type AttemptRow = Selectable<AttemptsTable>;

/** The refusal of an answer for another node's attempt (the route answers it as `attempt_not_found`). */
export const FOREIGN_ATTEMPT = 'foreign_attempt';

type MarkRow = Pick<Selectable<NodesTable>, 'report_boot_id' | 'last_report_seq'> & { attempt_id: string };

/**
 * The answered attempts, their intents and their nodes' report marks, in one round trip, BEGIN included,
 * however many answers arrive together. The nodes' marks held still (nodes before intents, the order reports
 * lock in): an attempt whose lease ran out waits for a report newer than the last one accepted by now. Then
 * the intents and the attempts, locked, each in id order. Prepared, named by their keys' count (`keyed`).
 */
async function loadAnswered(trx: Kysely<Tables>, attemptIds: readonly string[]): Promise<Map<string, Loaded>> {
  const { match: byAttempt, name } = keyed(attemptIds, 'result', 'results');
  const [marks, intents, attempts] = await together<[MarkRow, Selectable<IntentsTable>, Selectable<AttemptsTable>]>(trx, [
    prepared(
      name('marks'),
      trx
        .selectFrom('attempts as a')
        .innerJoin('nodes as n', 'n.node_id', 'a.node_id')
        .select(['a.attempt_id', 'n.report_boot_id', 'n.last_report_seq'])
        .where('a.attempt_id', '=', byAttempt)
        // The nodes by key too, whatever the plan guesses of how many attempts the batch names.
        .where(namedBy('n.node_id', trx.selectFrom('attempts').select('node_id').where('attempt_id', '=', byAttempt)))
        .orderBy('n.node_id')
        .forShare(['n']),
    ),
    prepared(
      name('intents'),
      trx
        .selectFrom('intents')
        .selectAll()
        .where(namedBy('intent_id', trx.selectFrom('attempts').select('intent_id').where('attempt_id', '=', byAttempt)))
        .orderBy('intent_id')
        .forUpdate(),
    ),
    prepared(name('attempts'), trx.selectFrom('attempts').selectAll().where('attempt_id', '=', byAttempt).orderBy('attempt_id').forUpdate()),
  ]);
  // An attempt not found here (unknown, or its node's row gone with a retirement) is left out: its command
  // loads alone, and reads whether its caller was retired.
  const loaded = new Map<string, Loaded>();
  const intentsById = new Map(intents.map((i) => [i.intent_id, i]));
  const marksByAttempt = new Map(marks.map((m) => [m.attempt_id, m]));
  for (const attempt of attempts) {
    const mark = marksByAttempt.get(attempt.attempt_id);
    const intent = intentsById.get(attempt.intent_id);
    if (!mark || !intent) continue;
    const nodeReport = mark.report_boot_id !== null ? { bootId: mark.report_boot_id, seq: mark.last_report_seq ?? 0 } : null;
    loaded.set(attempt.attempt_id, { attempt: toAttempt(attempt), intent: toIntent(intent), nodeReport, retiredAt: null });
  }
  return loaded;
}

/** One answer's state; when its attempt is not found, whether the calling node was retired, which refuses it first. */
async function loadAnswer(trx: Kysely<Tables>, attemptId: string, nodeId: string): Promise<Loaded> {
  const found = (await loadAnswered(trx, [attemptId])).get(attemptId);
  if (found) return found;
  const retired = await trx.selectFrom('retired_nodes').select('retired_at').where('node_id', '=', nodeId).executeTakeFirst();
  return { attempt: null, intent: null, nodeReport: null, retiredAt: retired?.retired_at ?? null };
}

/** The attempt as the answer to its result shows it, read in the commit's round trip (Command.readBack). */
export function answeredAttempt(committed: Committed<unknown>): AttemptRow {
  // The rows of recordResult's own readBack: its attempt, which the command found, so exactly one.
  return committed.readBack![0] as AttemptRow;
}

/**
 * POST /agent/attempts/{id}/result: the agent's answer, from the attempt's own node only. Answers arriving
 * together load together, one answer per node in a load: a node's answers may share an intent, and the
 * second must see what the first decided.
 */
export function recordResult(
  attemptId: string,
  nodeId: string,
  result: AttemptResult,
  policy: RetryPolicy,
  jitter: number,
): Command<Loaded, { retryAt: Date | null; leaseExpired: boolean }> {
  return {
    name: 'RecordResult',
    // The caller's node: the attempt's, unless the attempt is another node's, which is refused.
    locksNode: nodeId,
    bulk: { kind: 'result', key: attemptId, scope: nodeId, loadMany: loadAnswered },
    load: (trx) => loadAnswer(trx, attemptId, nodeId),
    // Prepared: every result of a rollout's targets answers with its attempt.
    readBack: (trx) => prepared('answered_attempt', trx.selectFrom('attempts').selectAll().where('attempt_id', '=', attemptId)),
    decide({ attempt, intent, nodeReport, retiredAt }, now) {
      if (retiredAt) return retiredRefusal(nodeId, retiredAt);
      if (!attempt || !intent) return { ok: false, error: { code: 'attempt_not_found', message: `no attempt ${attemptId} for node ${nodeId}` } };
      // Told apart here so the route can audit it; the caller is answered as for an unknown attempt.
      if (attempt.nodeId !== nodeId) return { ok: false, error: { code: FOREIGN_ATTEMPT, message: `no attempt ${attemptId} for node ${nodeId}` } };
      const decided = decideResult(attempt, intent, nodeReport, result, now, policy, jitter);
      if (!decided.ok) return decided;
      const { events, retryAt } = decided.value;
      const leaseExpired = events.some((e) => e.type === 'AttemptAmbiguous');
      // A failure may settle its rollout's target, and a restore's answer its recovery (the job re-reads and
      // decides); so may a configuration attempt gone ambiguous. A configuration apply's success settles
      // nothing: the report that proves it runs the job.
      const settles = leaseExpired || events.some((e) => e.type === 'AttemptFailed') || attempt.operation === 'restore';
      const jobs = [...(retryAt ? [reconcileJob(nodeId, retryAt)] : []), ...(intent.rolloutId !== null && settles ? [rolloutJob(intent.rolloutId)] : [])];
      return ok({ events, jobs, result: { retryAt, leaseExpired } });
    },
  };
}
