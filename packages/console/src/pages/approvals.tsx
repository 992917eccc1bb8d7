import { useEffect, useState } from 'react';
import { api, liveAndRecent, type Page } from '../api.ts';
import { ApprovalCard } from '../components/approval-card.tsx';
import { gateAsks } from '../components/gate-status.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { emptyDraft, RolloutForm, type RolloutDraft } from '../components/rollout-form.tsx';
import { mayApprove, mayOperate } from '../role.ts';
import type { Session } from '../session.ts';
import type { ApprovalView, ConfigVersionSummary, NewRollout } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';

/**
 * What a republished request keeps of the one it replaces besides the form's fields: its kind (an apply or a
 * rollback is not a rollout: it goes through a recovery hold, SPEC I13) and its health gate (L3).
 */
function carried(from: ApprovalView | null): { kind: ApprovalView['kind']; health?: NonNullable<ApprovalView['health']>; republished_from: string | null } {
  if (!from) return { kind: 'rollout', republished_from: null };
  return { kind: from.kind, ...(from.health && { health: from.health }), republished_from: from.approval_id };
}

function CarriedTerms({ from }: { from: ApprovalView }) {
  return (
    <span data-testid="approval-form-carried">
      Republished as a request of kind {from.kind}
      {from.health ? `, with its health gate: ${gateAsks(from.health)}` : ', without a health gate'}.
    </span>
  );
}

/** The pending queue first, then decided requests; operators submit and republish, admins decide. */
export function ApprovalsPage({ session }: { session: Session }) {
  const { token } = session;
  const approvals = useResource(token, () => liveAndRecent<ApprovalView>(token, '/api/v1/config-approvals', ['status=pending'], 50, (a) => a.approval_id));
  const versions = useResource(token, () => api<Page<ConfigVersionSummary>>(token, 'GET', '/api/v1/config-versions?limit=100'));
  // The form's draft, and the rejected or expired request it republishes (null for a new request).
  const [form, setForm] = useState<{ draft: RolloutDraft; from: ApprovalView | null; key: number } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  useEffect(() => {
    if (form) document.getElementById('approval-form-title')?.focus();
  }, [form?.key]);
  const items = approvals.data ?? [];
  const pending = items.filter((a) => a.status === 'pending');
  const decided = items.filter((a) => a.status !== 'pending');
  const submit = async (request: NewRollout) => {
    setError(null);
    try {
      const a = await api<ApprovalView>(token, 'POST', '/api/v1/config-approvals', { ...request, ...carried(form?.from ?? null) });
      setNotice(`Submitted ${a.approval_id} for approval.`);
      setForm(null);
      approvals.reload();
    } catch (e) {
      setError(e);
    }
  };
  const decide = (a: ApprovalView) => (decision: 'approve' | 'reject', reason: string | null) => {
    setError(null);
    api<ApprovalView>(token, 'POST', `/api/v1/config-approvals/${encodeURIComponent(a.approval_id)}/${decision}`, decision === 'reject' ? { reason } : {}).then(
      (done) => {
        setNotice(decision === 'approve' ? `Approved ${a.approval_id}: rollout ${done.rollout_id} created.` : `Rejected ${a.approval_id}.`);
        approvals.reload();
      },
      setError,
    );
  };
  const open = (next: { draft: RolloutDraft; from: ApprovalView | null }) => {
    setNotice('');
    setForm({ ...next, key: Date.now() });
  };
  const republish = (a: ApprovalView) => () =>
    open({
      draft: { config_version: a.config_version, nodes: a.selector ? [] : a.nodes, selector: a.selector, batch_size: a.batch_size },
      from: a,
    });
  const card = (a: ApprovalView) => (
    <ApprovalCard
      key={a.approval_id}
      approval={a}
      me={session.id}
      approve={mayApprove(session.role)}
      operate={mayOperate(session.role)}
      decide={decide(a)}
      republish={republish(a)}
    />
  );
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <ErrorNotice error={approvals.error ?? versions.error} />
      <ErrorNotice error={error} />
      <p role="status" className="notice">
        {notice}
      </p>
      {mayOperate(session.role) && !form && (
        <button type="button" onClick={() => open({ draft: emptyDraft, from: null })}>
          New approval request
        </button>
      )}
      {form && versions.data && (
        <>
          <RolloutForm
            key={form.key}
            id="approval-form"
            title={form.from ? `Republish ${form.from.approval_id}` : 'New approval request'}
            submitLabel="Submit for approval"
            token={token}
            versions={versions.data.items}
            initial={form.draft}
            {...(form.from && { note: <CarriedTerms from={form.from} /> })}
            onSubmit={submit}
          />
          <button type="button" className="secondary" onClick={() => setForm(null)}>
            Discard request
          </button>
        </>
      )}
      <h2>Pending ({pending.length})</h2>
      {pending.length === 0 && <p>Nothing waits for approval.</p>}
      {pending.map(card)}
      <h2>Decided</h2>
      {decided.length === 0 && <p>No decided request yet.</p>}
      {decided.map(card)}
    </section>
  );
}
