import { useEffect, useState } from 'react';
import { api, type Page } from '../api.ts';
import { oneEventQuery } from '../history-query.ts';
import type { EventView } from '../hub-api.ts';
import { CopyText } from './copy-text.tsx';
import { ErrorNotice } from './notice.tsx';
import { WhyChain } from './why-chain.tsx';

/**
 * The selected event in full: where and when it was recorded, by whom, its correlation and causation ids, its
 * data and, for an attempt's event, why the attempt exists. `loaded` is the event when the page holds it;
 * otherwise (a shared link, a reload) it is read by its cursor.
 */
export function EventDetail(props: { token: string; cursor: string; loaded: EventView | null; onFilterByCorrelation(id: string): void; onClose(): void }) {
  const { token, cursor, loaded } = props;
  const [read, setRead] = useState<EventView | 'missing' | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (loaded) return;
    const query = oneEventQuery(cursor);
    if (query === null) return setRead('missing');
    api<Page<EventView>>(token, 'GET', query).then((page) => setRead(page.items[0]?.cursor === cursor ? page.items[0] : 'missing'), setError);
  }, [token, cursor, loaded]);
  const e = loaded ?? (read === 'missing' ? null : read);
  const attemptId = e && typeof e.data.attempt_id === 'string' ? e.data.attempt_id : null;
  return (
    <section className="panel event-detail" aria-label={`Event ${e?.position ?? cursor}`}>
      <h2>
        {e ? (
          <>
            {e.type} <span className="hint mono">#{e.position}</span>
          </>
        ) : (
          'Event'
        )}
      </h2>
      <ErrorNotice error={error} />
      {read === 'missing' && !loaded && <p className="warn">No event of the log has the cursor {cursor}.</p>}
      {e && (
        <dl className="facts">
          <dt>Stream</dt>
          <dd className="mono">{e.stream_id}</dd>
          <dt>Recorded</dt>
          <dd>{new Date(e.recorded_at).toLocaleString()}</dd>
          <dt>Actor</dt>
          <dd>
            {e.metadata.actor} ({e.metadata.role}, {e.metadata.source})
          </dd>
          <dt>Correlation id</dt>
          <dd>
            <CopyText text={e.metadata.correlation_id} what="correlation id" />{' '}
            <button type="button" className="secondary" onClick={() => props.onFilterByCorrelation(e.metadata.correlation_id)}>
              Show only this request
            </button>
          </dd>
          <dt>Causation id</dt>
          <dd>{e.metadata.causation_id ? <CopyText text={e.metadata.causation_id} what="causation id" /> : 'none'}</dd>
          <dt>Data</dt>
          <dd>
            <pre>{JSON.stringify(e.data, null, 2)}</pre>
          </dd>
        </dl>
      )}
      {attemptId && <WhyChain token={token} attemptId={attemptId} />}
      <button type="button" className="secondary" onClick={props.onClose}>
        Close
      </button>
    </section>
  );
}
