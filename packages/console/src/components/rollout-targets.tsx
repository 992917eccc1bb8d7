import { api } from '../api.ts';
import type { RolloutView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';
import { StateBadge } from './badge.tsx';
import { ErrorNotice } from './notice.tsx';
import { WaitingOnText } from './waiting-on.tsx';

// Rows a table holds: a rollout may have 10,000 targets, and the CLI lists every one (`fleetplane rollouts get`).
const ROWS = 200;

/**
 * A rollout's targets with what each waits on, its failure and any recovery hold (highlighted), read from
 * `GET /rollouts/{id}`: the list of rollouts carries only their counts. Failed and held targets come first,
 * and at most ROWS are shown.
 */
export function RolloutTargets({ token, rolloutId }: { token: string; rolloutId: string }) {
  const rollout = useResource(token, () => api<RolloutView>(token, 'GET', `/api/v1/rollouts/${encodeURIComponent(rolloutId)}`));
  if (!rollout.data) return <ErrorNotice error={rollout.error} />;
  const holding = (t: RolloutView['targets'][number]) => t.recovery_phase === 'restoring' || (t.recovery_claim !== null && t.recovery_claim.class !== 'pre_mutation');
  const attention = (t: RolloutView['targets'][number]) => t.state === 'failed' || holding(t);
  const { targets } = rollout.data;
  const rows = [...targets.filter(attention), ...targets.filter((t) => !attention(t))].slice(0, ROWS);
  return (
    <>
    <table>
      <caption className="visually-hidden">Targets of {rolloutId}</caption>
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
        {rows.map((t) => (
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
    {targets.length > rows.length && (
      <p className="hint">
        {rows.length} of {targets.length} targets shown, failed and held ones first: <span className="mono">fleetplane rollouts get {rolloutId}</span> lists every one.
      </p>
    )}
    </>
  );
}
