import { listAll } from '../api.ts';
import { StateBadge } from '../components/badge.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { WaitingOnText } from '../components/waiting-on.tsx';
import { useScrollToHash } from '../router.tsx';
import type { Session } from '../session.ts';
import type { IntentView, StreamView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';

// Intents that need a person: ambiguous ones wait for a newer full report, blocked ones for a new generation.
const NEEDS_ATTENTION = new Set(['ambiguous', 'blocked']);

/** Desired against observed state per node of every stream, with each node's intent, retries and failures. */
export function StreamsPage({ session }: { session: Session }) {
  const streams = useResource(session.token, () => listAll<StreamView>(session.token, '/api/v1/streams'));
  useScrollToHash(streams.data !== null);
  return (
    <section aria-labelledby="streams-title">
      <h1 id="streams-title">Streams</h1>
      <ErrorNotice error={streams.error} />
      {streams.data?.length === 0 && <p>No stream yet.</p>}
      {streams.data?.map((s) => (
        <article className="panel" key={s.stream_id} aria-labelledby={`stream-${s.stream_id}`}>
          <h2 id={`stream-${s.stream_id}`}>
            <span className="mono">{s.stream_id}</span>: desired {s.desired_state} at generation {s.generation}
            {s.placement.split && <span className="hint"> (split)</span>}
          </h2>
          <table>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Desired</th>
                <th scope="col">Observed</th>
                <th scope="col">Intent</th>
                <th scope="col">Failure</th>
                <th scope="col">Retries</th>
                <th scope="col">Next retry</th>
                <th scope="col">Waiting on</th>
              </tr>
            </thead>
            <tbody>
              {s.placement.nodes.map((nodeId) => {
                const observed = s.observed[nodeId];
                const intent: IntentView | undefined = s.intents.find((i) => i.node_id === nodeId);
                const attention = intent !== undefined && NEEDS_ATTENTION.has(intent.state);
                return (
                  <tr key={nodeId} data-node={nodeId} className={attention ? 'highlight' : undefined}>
                    <th scope="row">{nodeId}</th>
                    <td>
                      {s.desired_state} · gen {s.generation}
                    </td>
                    <td>{observed ? `${observed.state} · gen ${observed.generation}` : 'not reported'}</td>
                    <td>
                      {intent ? (
                        <>
                          <StateBadge state={intent.state} /> gen {intent.generation}
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{intent?.failure_class ? `${intent.failure_class}${intent.failure_code ? ` (${intent.failure_code})` : ''}` : ''}</td>
                    <td>{intent?.retry_count ?? ''}</td>
                    <td>{intent?.next_retry_at ? new Date(intent.next_retry_at).toLocaleTimeString() : ''}</td>
                    <td>
                      <WaitingOnText waiting={intent?.waiting_on ?? null} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </article>
      ))}
    </section>
  );
}
