import { useEffect, useState } from 'react';
import { api } from '../api.ts';
import { ErrorNotice } from './notice.tsx';
import type { WhyLink } from '../hub-api.ts';

/** Why an attempt exists: its causation chain, from the attempt back to the action or report behind it. */
export function WhyChain({ token, attemptId }: { token: string; attemptId: string }) {
  const [why, setWhy] = useState<WhyLink[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<{ why: WhyLink[] }>(token, 'GET', `/api/v1/attempts/${encodeURIComponent(attemptId)}`).then((a) => setWhy(a.why), setError);
  }, [token, attemptId]);
  return (
    <section className="why" aria-label={`Why attempt ${attemptId} exists`}>
      <h3>
        Why <span className="mono">{attemptId}</span>
      </h3>
      <ErrorNotice error={error} />
      {why && (
        <ol>
          {why.map((w) => (
            <li key={w.position}>
              <strong>{w.relation.replace(/_/g, ' ')}</strong>: {w.type} on <span className="mono">{w.stream_id}</span> by {w.actor} ({w.role}) at{' '}
              {new Date(w.recorded_at).toLocaleString()} <span className="hint mono">#{w.position}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
