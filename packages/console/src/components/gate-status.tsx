import { StateBadge } from './badge.tsx';
import type { RolloutSummary } from '../hub-api.ts';

const ACTIONS = {
  opened: 'rollback opened',
  skipped: 'nothing restored (every target already restoring or held, or the rollout ended first)',
  approval_required: 'the rollback needs an approval',
  failed: 'the rollback failed',
};

/** What a health gate asks (SPEC L3), as a rollout or the approval request that pins it holds it. */
export const gateAsks = (h: NonNullable<RolloutSummary['health']>): string =>
  `soak ${Math.round(h.soak_ms / 1000)} s, at most ${h.max_unhealthy_targets} unhealthy target${h.max_unhealthy_targets === 1 ? '' : 's'}, then ${h.on_unhealthy}`;

/** A rollout's health gate (SPEC L5): what it asks, the state of the batch it last watched, and its evidence. */
export function GateStatus({ rollout: r }: { rollout: RolloutSummary }) {
  if (!r.health) return null;
  const g = r.gate;
  return (
    <section aria-label={`Health gate of ${r.rollout_id}`} data-testid="health-gate">
      <p>
        Health gate: {gateAsks(r.health)}
        {g && (
          <>
            {' '}
            · batch {g.batch + 1} <StateBadge state={g.state} />
            {g.state === 'soaking' && g.until && <> until {new Date(g.until).toLocaleTimeString()}</>}
            {g.action && <> · health executor: {ACTIONS[g.action]}</>}
          </>
        )}
      </p>
      {g && g.evidence.length > 0 && (
        <table>
          <caption>Why the gate failed</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Stream</th>
              <th scope="col">Reason</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {g.evidence.map((e, i) => (
              <tr key={`${e.node_id}-${e.stream_id ?? ''}-${i}`} className="highlight">
                <th scope="row">{e.node_id}</th>
                <td className="mono">{e.stream_id ?? ''}</td>
                <td>
                  {e.reason.replace(/_/g, ' ')}: {e.detail}
                </td>
                <td>{e.since ? <time dateTime={e.since}>{new Date(e.since).toLocaleString()}</time> : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
