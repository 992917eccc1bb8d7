import { Fragment, useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, type Page } from '../api.ts';
import { ErrorNotice } from '../components/notice.tsx';
import { ReportRates } from '../components/report-rates.tsx';
import { WhyChain } from '../components/why-chain.tsx';
import { onFleetChange } from '../live.ts';
import type { Session } from '../session.ts';
import type { LogEvent } from '../types.ts';

const FIELDS = [
  { name: 'stream_id', label: 'Stream', hint: 'e.g. node:edge-1' },
  { name: 'type', label: 'Types', hint: 'comma-separated, e.g. LabelsReplaced' },
  { name: 'correlation_id', label: 'Correlation id', hint: '' },
  { name: 'actor', label: 'Actor', hint: 'e.g. bob' },
  { name: 'since', label: 'Since', hint: '' },
  { name: 'until', label: 'Until', hint: '' },
] as const;

const REPORTS = [
  { value: 'changed', label: 'Changed only: repeats left out' },
  { value: 'all', label: 'All' },
  { value: 'none', label: 'None' },
] as const;

type Filters = Partial<Record<(typeof FIELDS)[number]['name'] | 'reports', string>>;

/** Which reports a filter shows: the console always says, so a stream filter alone still leaves repeats out. */
const reportsOf = (filters: Filters): string => filters.reports ?? 'changed';

/** The node whose stream a filter names (`node:edge-1`), if it names one. */
const nodeOf = (filters: Filters): string | null => (filters.stream_id?.startsWith('node:') ? filters.stream_id.slice('node:'.length) : null);

function query(filters: Filters, after: string | null): string {
  const q = new URLSearchParams({ limit: '100', reports: reportsOf(filters) });
  for (const [k, v] of Object.entries(filters)) {
    // since and until are local times in the form; the Hub takes ISO 8601 with an offset.
    if (v) q.set(k, k === 'since' || k === 'until' ? new Date(v).toISOString() : v);
  }
  if (after) q.set('after', after);
  return `/api/v1/events?${q}`;
}

/**
 * The event log in order, filtered by stream, type, correlation id, actor and time. Pages load on demand;
 * once the last page is loaded, new events are appended as they happen. An attempt's events answer why it
 * exists. Reports that repeat their node's last state are left out unless asked for: each node's report rate
 * stands in their place.
 */
export function HistoryPage({ session }: { session: Session }) {
  const { token } = session;
  const [draft, setDraft] = useState<Filters>({});
  const [filters, setFilters] = useState<Filters>({});
  const [events, setEvents] = useState<LogEvent[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [why, setWhy] = useState<string | null>(null);
  // Where the next read starts, and whether a read is running, across renders and live notifications.
  const cursor = useRef<string | null>(null);
  const reading = useRef(false);
  const generation = useRef(0);

  const read = useCallback(
    async (fresh: boolean) => {
      if (reading.current && !fresh) return;
      reading.current = true;
      const mine = ++generation.current;
      try {
        const page = await api<Page<LogEvent>>(token, 'GET', query(filters, fresh ? null : cursor.current));
        if (mine !== generation.current) return;
        cursor.current = page.items.at(-1)?.cursor ?? (fresh ? null : cursor.current);
        setEvents((old) => (fresh ? page.items : [...old, ...page.items]));
        setMore(page.next_cursor !== null);
        setError(null);
      } catch (e) {
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) reading.current = false;
      }
    },
    [token, filters],
  );
  const moreRef = useRef(more);
  moreRef.current = more;
  useEffect(() => {
    void read(true);
    // Live: follow the end of the log only when the last page is loaded, so nothing is skipped.
    return onFleetChange(token, () => {
      if (!moreRef.current) void read(false);
    });
  }, [token, read]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setWhy(null);
    setFilters({ ...draft });
  };
  const byCorrelation = (id: string) => {
    setDraft({ correlation_id: id });
    setFilters({ correlation_id: id });
  };
  const showEveryReport = () => {
    setDraft({ ...draft, reports: 'all' });
    setFilters({ ...filters, reports: 'all' });
  };
  const reports = reportsOf(filters);
  return (
    <section aria-labelledby="history-title">
      <h1 id="history-title">History</h1>
      <form className="panel filters" onSubmit={apply} aria-label="Filter events">
        {FIELDS.map((f) => (
          <div className="field" key={f.name}>
            <label htmlFor={`filter-${f.name}`}>{f.label}</label>
            <input
              id={`filter-${f.name}`}
              type={f.name === 'since' || f.name === 'until' ? 'datetime-local' : 'text'}
              placeholder={f.hint}
              value={draft[f.name] ?? ''}
              onChange={(e) => setDraft({ ...draft, [f.name]: e.target.value })}
            />
          </div>
        ))}
        <div className="field">
          <label htmlFor="filter-reports">Reports</label>
          <select id="filter-reports" value={reportsOf(draft)} onChange={(e) => setDraft({ ...draft, reports: e.target.value })}>
            {REPORTS.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setDraft({});
              setFilters({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorNotice error={error} />
      {reports !== 'all' && (
        <ReportRates key={nodeOf(filters) ?? ''} token={token} nodeId={nodeOf(filters)} left={reports === 'none' ? 'all' : 'repeated'} onShowAll={showEveryReport} />
      )}
      <table>
        <caption>
          {events.length} event{events.length === 1 ? '' : 's'}, oldest first{more ? '' : '; new ones appear as they happen'}
        </caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Stream</th>
            <th scope="col">Actor</th>
            <th scope="col">Correlation</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => {
            const attemptId = typeof e.data.attempt_id === 'string' ? e.data.attempt_id : null;
            return (
              <Fragment key={e.position}>
                <tr data-event-type={e.type}>
                  <td className="mono">{e.position}</td>
                  <td>{new Date(e.recorded_at).toLocaleString()}</td>
                  <td>{e.type}</td>
                  <td className="mono">{e.stream_id}</td>
                  <td>
                    {e.metadata.actor} <span className="hint">({e.metadata.role})</span>
                  </td>
                  <td>
                    <button type="button" className="link mono" title="Show only this correlation id" onClick={() => byCorrelation(e.metadata.correlation_id)}>
                      {e.metadata.correlation_id.slice(0, 8)}
                      <span className="visually-hidden">: show only events of correlation id {e.metadata.correlation_id}</span>
                    </button>
                  </td>
                  <td>
                    <details>
                      <summary>Data</summary>
                      <pre>{JSON.stringify(e.data, null, 2)}</pre>
                    </details>
                    {attemptId && (
                      <button type="button" className="secondary" aria-expanded={why === `${e.position}`} onClick={() => setWhy(why === `${e.position}` ? null : `${e.position}`)}>
                        Why?<span className="visually-hidden"> (attempt {attemptId})</span>
                      </button>
                    )}
                  </td>
                </tr>
                {attemptId && why === `${e.position}` && (
                  <tr>
                    <td colSpan={7}>
                      <WhyChain token={token} attemptId={attemptId} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {more && (
        <button type="button" onClick={() => void read(false)}>
          Load more
        </button>
      )}
    </section>
  );
}
