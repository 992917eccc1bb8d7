import { targetProgress, totalTargets } from '@fleetplane/core/target-progress';
import { useState } from 'react';
import { StateBadge } from './badge.tsx';
import { GateStatus } from './gate-status.tsx';
import { RolloutTargets } from './rollout-targets.tsx';
import type { ConfigVersionSummary, RolloutSummary } from '../hub-api.ts';

const LIVE = new Set(['applying', 'paused']);

/**
 * Which live rollouts show their targets without being asked: the first few of at most a few dozen targets.
 * Each shown table is one more read of a page of targets at every reload, so hundreds of live rollouts, or
 * one of 10,000 targets, show their counts until asked.
 */
export const INLINE_TARGETS = { rollouts: 10, targets: 50 };

export function showsTargetsInline(rollouts: readonly RolloutSummary[]): Set<string> {
  return new Set(
    rollouts
      .filter((r) => LIVE.has(r.state) && totalTargets(r.target_counts) <= INLINE_TARGETS.targets)
      .slice(0, INLINE_TARGETS.rollouts)
      .map((r) => r.rollout_id),
  );
}

/**
 * One rollout: batch progress from its target counts, its actions, and a page of its targets with what they
 * wait on and any recovery hold: shown while it is applying or paused, on request once it ended.
 */
export function RolloutCard(props: {
  rollout: RolloutSummary;
  token: string;
  /** Its targets show without being asked (showsTargetsInline). */
  inline: boolean;
  versions: readonly ConfigVersionSummary[];
  operate: boolean;
  act(body: Record<string, unknown>): void;
}) {
  const { rollout: r, operate, act } = props;
  const [rollbackTo, setRollbackTo] = useState('');
  const [showTargets, setShowTargets] = useState(false);
  const counts = r.target_counts;
  const total = totalTargets(counts);
  const titleId = `rollout-${r.rollout_id}`;
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
        <progress value={counts.converged} max={total} aria-label={`${counts.converged} of ${total} targets converged`} />
        <span data-testid="progress">
          Batch {Math.min(r.current_batch + 1, r.batches)} of {r.batches} · {targetProgress(counts)} · batch size {r.batch_size}
        </span>
      </div>
      {r.state === 'paused' && r.paused_reason && <p className="warn">Paused: {r.paused_reason}</p>}
      <GateStatus rollout={r} />
      {r.recovery !== 'none' && (
        <p className="warn" role="note">
          {r.recovery === 'restoring' ? 'A restore is in flight' : 'A failed restore may have changed a target'}: no new batch and no automated retry
          until it settles (the targets that hold it are highlighted).
        </p>
      )}
      {(props.inline && LIVE.has(r.state)) || showTargets ? (
        <>
          <RolloutTargets token={props.token} rollout={r} />
          {showTargets && (
            <button type="button" className="link" onClick={() => setShowTargets(false)}>
              Hide the targets
            </button>
          )}
        </>
      ) : (
        <button type="button" className="link" onClick={() => setShowTargets(true)}>
          Show the {total} target{total === 1 ? '' : 's'}
        </button>
      )}
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
          {counts.failed > 0 && LIVE.has(r.state) && (
            <button type="button" className="secondary" onClick={() => act({ action: 'rollback', scope: 'failed' })}>
              Restore failed targets
            </button>
          )}
          {/* Any rollout but a rolled-back one takes a rollback (a cancelled one too); the Hub refuses one another rollout superseded. */}
          {r.state !== 'rolled_back' && older.length > 0 && (
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
