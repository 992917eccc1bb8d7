import { targetProgress } from '@fleetplane/core/target-progress';
import { useState } from 'react';
import { StateBadge } from './badge.tsx';
import { WaitingOnText } from './waiting-on.tsx';
import { GateStatus } from './gate-status.tsx';
import type { ConfigVersionSummary, RolloutView } from '../hub-api.ts';

const LIVE = new Set(['applying', 'paused']);

/** One rollout: batch progress, targets with what they wait on and any recovery hold, and its actions. */
export function RolloutCard(props: { rollout: RolloutView; versions: readonly ConfigVersionSummary[]; operate: boolean; act(body: Record<string, unknown>): void }) {
  const { rollout: r, operate, act } = props;
  const [rollbackTo, setRollbackTo] = useState('');
  const converged = r.targets.filter((t) => t.state === 'converged').length;
  const titleId = `rollout-${r.rollout_id}`;
  const holding = r.targets.filter((t) => t.recovery_phase === 'restoring' || (t.recovery_claim && t.recovery_claim.class !== 'pre_mutation'));
  const older = props.versions.filter((v) => v.config_version !== r.config_version);
  return (
    <article className="panel" aria-labelledby={titleId} data-rollout={r.rollout_id}>
      <h3 id={titleId}>
        <span className="mono">{r.rollout_id}</span> <StateBadge state={r.state} />
        {r.recovery !== 'none' && <StateBadge state={r.recovery} />}
      </h3>
      <p>
        {r.kind} of <span className="mono">{r.config_version}</span> by {r.created_by}
        {r.approval_id && <> (approval {r.approval_id})</>}
        {r.selector && (
          <>
            {' '}
            · selector <span className="mono">{Object.entries(r.selector).map(([k, v]) => `${k}=${v}`).join(', ')}</span>
          </>
        )}
      </p>
      <div className="progress">
        <progress value={converged} max={r.targets.length} aria-label={`${converged} of ${r.targets.length} targets converged`} />
        <span data-testid="progress">
          Batch {Math.min(r.current_batch + 1, r.batches)} of {r.batches} · {targetProgress(r.targets)} · batch size {r.batch_size}
        </span>
      </div>
      {r.state === 'paused' && r.paused_reason && <p className="warn">Paused: {r.paused_reason}</p>}
      <GateStatus rollout={r} />
      {r.recovery !== 'none' && (
        <p className="warn" role="note">
          {r.recovery === 'restoring' ? 'A restore is in flight' : 'A failed restore may have changed a target'}: no new batch and no automated retry
          until it settles ({holding.map((t) => t.node_id).join(', ') || 'see targets'}).
        </p>
      )}
      <table>
        <caption className="visually-hidden">Targets of {r.rollout_id}</caption>
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
          {r.targets.map((t) => (
            <tr key={t.node_id} data-target={t.node_id} className={t.state === 'failed' || holding.includes(t) ? 'highlight' : undefined}>
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
      {operate && (
        <div className="actions">
          {r.state === 'applying' && (
            <button type="button" className="secondary" onClick={() => act({ action: 'pause' })}>
              Pause
            </button>
          )}
          {r.state === 'paused' && (
            <button type="button" className="secondary" onClick={() => act({ action: 'resume' })}>
              Resume
            </button>
          )}
          {LIVE.has(r.state) && (
            <button type="button" className="secondary" onClick={() => act({ action: 'cancel' })}>
              Cancel
            </button>
          )}
          {r.targets.some((t) => t.state === 'failed') && LIVE.has(r.state) && (
            <button type="button" className="secondary" onClick={() => act({ action: 'rollback', scope: 'failed' })}>
              Restore failed targets
            </button>
          )}
          {(LIVE.has(r.state) || r.state === 'converged') && older.length > 0 && (
            <>
              <label htmlFor={`${titleId}-rollback`}>Roll back to</label>
              <select id={`${titleId}-rollback`} value={rollbackTo} onChange={(e) => setRollbackTo(e.target.value)}>
                <option value="">Choose a version…</option>
                {older.map((v) => (
                  <option key={v.config_version} value={v.config_version}>
                    {v.config_version}
                  </option>
                ))}
              </select>
              <button type="button" className="secondary" disabled={!rollbackTo} onClick={() => act({ action: 'rollback', config_version: rollbackTo })}>
                Roll back
              </button>
            </>
          )}
        </div>
      )}
    </article>
  );
}
