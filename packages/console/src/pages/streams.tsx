import { useEffect, useState } from 'react';
import { api, type Page } from '../api.ts';
import { Pager } from '../components/pager.tsx';
import { StateBadge } from '../components/badge.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { WaitingOnText } from '../components/waiting-on.tsx';
import { useScrollToHash, useSearch } from '../router.tsx';
import type { Session } from '../session.ts';
import type { IntentView, StreamView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';

// Intents that need a person: ambiguous ones wait for a newer full report, blocked ones for a new generation.
const NEEDS_ATTENTION = new Set(['ambiguous', 'blocked']);

// Streams a page shows: each is up to 256 nodes' rows, and each costs the Hub a read of its intents.
const PAGE_SIZE = 20;

/** The stream a link names (/streams#stream-ingest, from what an intent or a target waits on), if any. */
const linkedStream = (): string | null => (location.hash.startsWith('#stream-') ? decodeURIComponent(location.hash.slice('#stream-'.length)) : null);

/**
 * Desired against observed state per node of a page of streams (or the one a link names), with each node's
 * intent, retries and failures.
 */
export function StreamsPage({ session }: { session: Session }) {
  const { token } = session;
  const search = useSearch();
  const [one, setOne] = useState(linkedStream);
  useEffect(() => setOne(linkedStream()), [search]);
  // The cursors of the pages before this one, and this one's (null: the first page).
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const cursor = pages.at(-1) ?? null;
  const streams = useResource(
    token,
    () =>
      one !== null
        ? api<StreamView>(token, 'GET', `/api/v1/streams/${encodeURIComponent(one)}`).then((s): Page<StreamView> => ({ items: [s], next_cursor: null }))
        : api<Page<StreamView>>(token, 'GET', `/api/v1/streams?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    `${one}|${cursor}`,
  );
  useScrollToHash(streams.data !== null);
  return (
    <section aria-labelledby="streams-title">
      <h1 id="streams-title">Streams</h1>
      <ErrorNotice error={streams.error} />
      {one !== null && (
        <p>
          Stream <span className="mono">{one}</span> alone.{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              history.replaceState(null, '', '/streams');
              setOne(null);
            }}
          >
            Show every stream
          </button>
        </p>
      )}
      {streams.data?.items.length === 0 && <p>No stream yet.</p>}
      {streams.data?.items.map((s) => (
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
      {one === null && streams.data && <Pager label="Pages of streams" pages={pages} next={streams.data.next_cursor} onPages={setPages} />}
    </section>
  );
}
