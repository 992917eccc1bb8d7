import { useState } from 'react';
import { api, ApiError, liveAndRecent, type Page } from '../api.ts';
import { ErrorNotice } from '../components/notice.tsx';
import { RolloutCard, showsTargetsInline } from '../components/rollout-card.tsx';
import { emptyDraft, RolloutForm } from '../components/rollout-form.tsx';
import { mayOperate } from '../role.ts';
import { navigate } from '../router.tsx';
import type { Session } from '../session.ts';
import type { ApprovalSettings, ConfigVersionSummary, NewRollout, RolloutSummary, RolloutView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';

/**
 * Every applying or paused rollout and the recent ones, with live batch progress; operators create them by
 * nodes or by selector and steer them.
 */
export function RolloutsPage({ session }: { session: Session }) {
  const { token } = session;
  const rollouts = useResource(token, () => liveAndRecent<RolloutSummary>(token, '/api/v1/rollouts', ['state=applying', 'state=paused'], 20, (r) => r.rollout_id));
  const versions = useResource(token, () => api<Page<ConfigVersionSummary>>(token, 'GET', '/api/v1/config-versions?limit=100'));
  const approvals = useResource(token, () => api<ApprovalSettings>(token, 'GET', '/api/v1/settings/approvals'));
  const gate = approvals.data?.approval_required ?? false;
  const inline = showsTargetsInline(rollouts.data ?? []);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [gated, setGated] = useState<NewRollout | null>(null);
  const [notice, setNotice] = useState('');
  const operate = mayOperate(session.role);
  const create = async (request: NewRollout) => {
    setError(null);
    setGated(null);
    try {
      const r = await api<RolloutView>(token, 'POST', '/api/v1/rollouts', request);
      setNotice(`Created rollout ${r.rollout_id}.`);
      setCreating(false);
      rollouts.reload();
    } catch (e) {
      // With the approval gate on, the same proposal can go to the approval queue instead.
      if (e instanceof ApiError && e.code === 'approval_required') setGated(request);
      setError(e);
    }
  };
  const submitForApproval = async (request: NewRollout) => {
    setError(null);
    try {
      await api(token, 'POST', '/api/v1/config-approvals', { kind: 'rollout', ...request });
      navigate('/approvals');
    } catch (e) {
      setError(e);
    }
  };
  const act = (rolloutId: string) => (body: Record<string, unknown>) => {
    setError(null);
    api<RolloutView>(token, 'POST', `/api/v1/rollouts/${encodeURIComponent(rolloutId)}/actions`, body).then(
      () => {
        setNotice(`${String(body.action)}: done for ${rolloutId}.`);
        rollouts.reload();
      },
      setError,
    );
  };
  return (
    <section aria-labelledby="rollouts-title">
      <h1 id="rollouts-title">Rollouts</h1>
      <ErrorNotice error={rollouts.error ?? versions.error ?? approvals.error} />
      <ErrorNotice error={error} />
      {gated && (
        <p className="warn">
          This Hub requires a second person's approval for new rollouts.{' '}
          <button type="button" onClick={() => void submitForApproval(gated)}>
            Submit for approval instead
          </button>
        </p>
      )}
      <p role="status" className="notice">
        {notice}
      </p>
      {operate && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New rollout
        </button>
      )}
      {operate && creating && versions.data && (
        <RolloutForm
          id="new-rollout"
          title="New rollout"
          // With the gate on, the form says so before anything is sent, and submits the request itself.
          submitLabel={gate ? 'Submit for approval' : 'Create rollout'}
          note={
            gate &&
            "This Hub requires a second person's approval for configuration changes: submitting sends an approval request, and the rollout starts once an admin other than you approves it on the Approvals page."
          }
          token={token}
          versions={versions.data.items}
          initial={emptyDraft}
          onSubmit={gate ? submitForApproval : create}
        />
      )}
      <h2>Recent rollouts</h2>
      {rollouts.data?.length === 0 && <p>No rollout yet.</p>}
      {rollouts.data?.map((r) => (
        <RolloutCard key={r.rollout_id} rollout={r} token={token} inline={inline.has(r.rollout_id)} versions={versions.data?.items ?? []} operate={operate} act={act(r.rollout_id)} />
      ))}
    </section>
  );
}
