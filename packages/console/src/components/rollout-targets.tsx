import { totalTargets } from '@fleetplane/core/target-progress';
import { useState } from 'react';
import { api, type Page } from '../api.ts';
import type { RolloutSummary, RolloutTargetView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';
import { StateBadge } from './badge.tsx';
import { ErrorNotice } from './notice.tsx';
import { Pager } from './pager.tsx';
import { WaitingOnText } from './waiting-on.tsx';

/** Targets a page shows: a rollout may have 10,000, and a reload reads the shown page only. */
export const TARGETS_PAGE = 50;

type TargetState = keyof RolloutSummary['target_counts'];
const STATES: readonly TargetState[] = ['failed', 'applying', 'waiting', 'converged', 'cancelled'];

/**
 * A page of a rollout's targets, by batch then node, with what each waits on, its failure and any recovery hold
 * (highlighted), read from `GET /rollouts/{id}/targets`, of one state if chosen; the rollout's counts (from the
 * list) say how many there are.
 */
export function RolloutTargets({ token, rollout }: { token: string; rollout: RolloutSummary }) {
  const id = rollout.rollout_id;
  const [state, setState] = useState<TargetState | ''>('');
  // The cursors of the pages before this one, and this one's (null: the first page).
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const cursor = pages.at(-1) ?? null;
  const targets = useResource(
    token,
    () =>
      api<Page<RolloutTargetView>>(
        token,
        'GET',
        `/api/v1/rollouts/${encodeURIComponent(id)}/targets?limit=${TARGETS_PAGE}${state ? `&state=${state}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    `${state}|${cursor}`,
  );
  const counts = rollout.target_counts;
  const total = state ? counts[state] : totalTargets(counts);
  const holding = (t: RolloutTargetView) => t.recovery_phase === 'restoring' || (t.recovery_claim !== null && t.recovery_claim.class !== 'pre_mutation');
  const attention = (t: RolloutTargetView) => t.state === 'failed' || holding(t);
  const first = (pages.length - 1) * TARGETS_PAGE + 1;
  return (
    <>
      <label htmlFor={`targets-state-${id}`}>Targets to show</label>{' '}
      <select
        id={`targets-state-${id}`}
        value={state}
        onChange={(e) => {
          // Both at once: a page of another state is never read from this one's cursor.
          setState(e.target.value as TargetState | '');
          setPages([null]);
        }}
      >
        <option value="">all ({totalTargets(counts)})</option>
        {STATES.map((s) => (
          <option key={s} value={s}>
            {s} ({counts[s]})
          </option>
        ))}
      </select>
      <ErrorNotice error={targets.error} />
      {targets.data && targets.data.items.length === 0 && <p>No {state || ''} target.</p>}
      {targets.data && targets.data.items.length > 0 && (
        <table>
          <caption>
            Targets {first}–{first + targets.data.items.length - 1} of {total}
            {state ? ` ${state}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Batch</th>
              <th scope="col">State</th>
              <th scope="col">Waiting on</th>
              <th scope="col">Failure</th>
              <th scope="col">Recovery</th>
            </tr>
          </thead>
          <tbody>
            {targets.data.items.map((t) => (
              <tr key={t.node_id} data-target={t.node_id} className={attention(t) ? 'highlight' : undefined}>
                <th scope="row">{t.node_id}</th>
                <td>{t.batch + 1}</td>
                <td>
                  <StateBadge state={t.state} />
                </td>
                <td>
                  <WaitingOnText waiting={t.waiting_on} />
                </td>
                <td>{t.failure_class ? `${t.failure_class}${t.failure_code ? ` (${t.failure_code})` : ''}${t.failure_message ? `: ${t.failure_message}` : ''}` : ''}</td>
                <td>
                  {t.recovery_phase && <>restore {t.recovery_phase}</>}
                  {t.recovery_claim && (
                    <>
                      {t.recovery_phase ? '; ' : ''}claim {t.recovery_claim.class.replace(/_/g, '-')}
                      {t.recovery_claim.code ? ` (${t.recovery_claim.code})` : ''}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {targets.data && <Pager label={`Pages of targets of ${id}`} pages={pages} next={targets.data.next_cursor} onPages={setPages} />}
    </>
  );
}
