import { useState } from 'react';
import { StateBadge } from './badge.tsx';
import { gateAsks } from './gate-status.tsx';
import type { ApprovalView } from '../hub-api.ts';

/**
 * One approval request. Admins decide pending ones, but never their own: the buttons stay visible and
 * disabled with the reason, since the Hub refuses self-approval (403 self_approval_forbidden) anyway.
 */
export function ApprovalCard(props: {
  approval: ApprovalView;
  me: string;
  approve: boolean;
  operate: boolean;
  decide(decision: 'approve' | 'reject', reason: string | null): void;
  republish(): void;
}) {
  const { approval: a, me } = props;
  const [reason, setReason] = useState('');
  const id = `approval-${a.approval_id}`;
  const own = a.submitted_by === me;
  return (
    <article className="panel" aria-labelledby={id} data-approval={a.approval_id}>
      <h3 id={id}>
        <span className="mono">{a.approval_id}</span> <StateBadge state={a.status} />
      </h3>
      <dl className="facts">
        <dt>Proposal</dt>
        <dd>
          {a.kind} of <span className="mono">{a.config_version}</span>, batch size {a.batch_size}
        </dd>
        {a.health && (
          <>
            <dt>Health gate</dt>
            <dd>{gateAsks(a.health)}</dd>
          </>
        )}
        <dt>Pinned nodes</dt>
        <dd className="mono">{a.nodes.join(', ')}</dd>
        {a.selector && (
          <>
            <dt>Selector</dt>
            <dd className="mono">{Object.entries(a.selector).map(([k, v]) => `${k}=${v}`).join(', ')}</dd>
          </>
        )}
        <dt>Submitted by</dt>
        <dd>{a.submitted_by}</dd>
        {a.status === 'pending' && (
          <>
            <dt>Expires</dt>
            <dd>{new Date(a.expires_at).toLocaleString()}</dd>
          </>
        )}
        {a.decided_by && (
          <>
            <dt>Decided by</dt>
            <dd>
              {a.decided_by}
              {a.reason && <>: “{a.reason}”</>}
            </dd>
          </>
        )}
        {a.rollout_id && (
          <>
            <dt>Rollout</dt>
            <dd className="mono">{a.rollout_id}</dd>
          </>
        )}
        {a.republished_from && (
          <>
            <dt>Republishes</dt>
            <dd className="mono">{a.republished_from}</dd>
          </>
        )}
      </dl>
      {a.status === 'pending' && props.approve && (
        <div className="actions">
          <button type="button" disabled={own} aria-describedby={own ? `${id}-own` : undefined} onClick={() => props.decide('approve', null)}>
            Approve
          </button>
          <label htmlFor={`${id}-reason`}>Reason for rejecting</label>
          <input id={`${id}-reason`} value={reason} disabled={own} onChange={(e) => setReason(e.target.value)} />
          <button type="button" className="secondary" disabled={own} aria-describedby={own ? `${id}-own` : undefined} onClick={() => props.decide('reject', reason || null)}>
            Reject
          </button>
          {own && (
            <span id={`${id}-own`} className="hint">
              You submitted this request: another admin must approve or reject it.
            </span>
          )}
        </div>
      )}
      {a.status === 'pending' && !props.approve && <p className="hint">Waiting for an admin to approve or reject it.</p>}
      {(a.status === 'rejected' || a.status === 'expired') && props.operate && (
        <div className="actions">
          <button type="button" className="secondary" onClick={props.republish}>
            Republish<span className="visually-hidden"> {a.approval_id}</span>
          </button>
        </div>
      )}
    </article>
  );
}
