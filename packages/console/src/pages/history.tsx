import { FLEET_EVENT_TYPES } from '@fleetplane/core/event-types';
import { Fragment, useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type MouseEvent } from 'react';
import { api, type Page } from '../api.ts';
import { CopyText } from '../components/copy-text.tsx';
import { EventDetail } from '../components/event-detail.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { ReportRates } from '../components/report-rates.tsx';
import { eventsQuery, isoToLocal, localToIso, readView, reportsOf, viewUrl, type Filters, type HistoryView } from '../history-query.ts';
import { onFleetChange } from '../live.ts';
import { navigate, useSearch } from '../router.tsx';
import type { Session } from '../session.ts';
import type { EventView } from '../hub-api.ts';

const FIELDS = [
  { name: 'stream_id', label: 'Stream', hint: 'e.g. node:edge-1' },
  { name: 'type', label: 'Types', hint: 'comma-separated, e.g. NodeLabelsReplaced,AttemptFailed' },
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

const KNOWN_TYPES = new Set<string>(FLEET_EVENT_TYPES);
// The most events the page holds as new ones come: a tab left open a day on a busy fleet would otherwise hold
// every event of the day. "Load older" still pages back past them on request.
const MAX_EVENTS = 500;
const typeNames = (text: string | undefined) => (text ?? '').split(',').map((t) => t.trim());

/**
 * The event types to suggest while typing a comma-separated list: each completes the list typed so far with
 * one more type that it does not hold yet.
 */
function typeSuggestions(text: string | undefined): string[] {
  const typed = typeNames(text).slice(0, -1).filter((t) => t !== '');
  return FLEET_EVENT_TYPES.filter((t) => !typed.includes(t)).map((t) => [...typed, t].join(','));
}

/** The node whose stream a filter names (`node:edge-1`), if it names one. */
const nodeOf = (filters: Filters): string | null => (filters.stream_id?.startsWith('node:') ? filters.stream_id.slice('node:'.length) : null);

/** The form's fields: times local, as a datetime-local input holds them. */
const toDraft = (filters: Filters): Filters => ({
  ...filters,
  ...(filters.since ? { since: isoToLocal(filters.since) } : {}),
  ...(filters.until ? { until: isoToLocal(filters.until) } : {}),
});
const fromDraft = (draft: Filters): Filters => {
  const filters: Filters = {};
  for (const [k, v] of Object.entries(draft) as [keyof Filters, string | undefined][]) {
    const value = k === 'since' || k === 'until' ? localToIso(v ?? '') : (v ?? '').trim();
    if (value && !(k === 'reports' && value === 'changed')) filters[k] = value;
  }
  return filters;
};

/**
 * The event log, newest first (or oldest first), filtered by stream, type, correlation id, actor and time,
 * the filters, order and selected event kept in the URL. Pages load on demand; new events appear as they
 * happen (at the top, or at the end once the last page is loaded). The selected event shows in full, with
 * why its attempt exists. Reports that repeat their node's last state are left out unless asked for: each
 * node's report rate stands in their place.
 */
export function HistoryPage({ session }: { session: Session }) {
  const { token } = session;
  const search = useSearch();
  const view = useMemo(() => readView(search), [search]);
  const { filters, order } = view;
  const newestFirst = order === 'newest';
  const filterKey = JSON.stringify([filters, order]);
  const [draft, setDraft] = useState<Filters>(() => toDraft(filters));
  const [events, setEvents] = useState<EventView[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Where reads go on from, across renders and live notifications: `newer` after the newest event read,
  // `older` before the oldest (newest first only; oldest first, `newer` pages on).
  const newer = useRef<string | null>(null);
  const older = useRef<string | null>(null);
  const reading = useRef(false);
  const generation = useRef(0);

  // Back, Forward and links change the URL: the form follows it.
  const filtersRef = useRef(filters);
  filtersRef.current = filters;
  useEffect(() => setDraft(toDraft(filtersRef.current)), [filterKey]);

  const read = useCallback(
    async (what: 'fresh' | 'older' | 'newer') => {
      if (reading.current && what !== 'fresh') return;
      reading.current = true;
      const mine = ++generation.current;
      try {
        const f = filtersRef.current;
        /** The newest page, newest first: what the page starts from, and where it starts again after a gap. */
        const newestPage = async () => {
          const page = await api<Page<EventView>>(token, 'GET', eventsQuery(f, { newestFirst: true }));
          if (mine !== generation.current) return;
          newer.current = page.items[0]?.cursor ?? null;
          older.current = page.next_cursor;
          setEvents(page.items);
          setMore(page.next_cursor !== null);
        };
        if (what === 'newer' || (what === 'fresh' && !newestFirst)) {
          // Forward from the newest event read, every page of what came since (newest first) or one more page.
          const got: EventView[] = [];
          let after = what === 'fresh' ? null : newer.current;
          let next: string | null;
          do {
            const page: Page<EventView> = await api<Page<EventView>>(token, 'GET', eventsQuery(f, { after }));
            if (mine !== generation.current) return;
            got.push(...page.items);
            after = page.items.at(-1)?.cursor ?? after;
            next = page.next_cursor;
          } while (newestFirst && next !== null && got.length < MAX_EVENTS);
          if (newestFirst && next !== null) {
            // More came since than the page keeps: start again from the newest rather than read them all.
            await newestPage();
          } else if (what === 'fresh') {
            newer.current = after;
            setEvents(got);
            setMore(next !== null);
          } else {
            newer.current = after;
            if (newestFirst) {
              // New events on top; past MAX_EVENTS the oldest shown go, and "Load older" reads on from the last kept.
              const newestOnTop = [...got].reverse();
              setEvents((old) => {
                const kept = [...newestOnTop, ...old].slice(0, MAX_EVENTS);
                if (kept.length < got.length + old.length) {
                  older.current = kept.at(-1)!.cursor;
                  setMore(true);
                }
                return kept;
              });
            } else {
              // Oldest first, the list follows the end of the log: past MAX_EVENTS its oldest go.
              setEvents((old) => [...old, ...got].slice(-MAX_EVENTS));
              setMore(next !== null);
            }
          }
        } else if (what === 'fresh') {
          await newestPage();
        } else {
          const page = await api<Page<EventView>>(token, 'GET', eventsQuery(f, { before: older.current, newestFirst: true }));
          if (mine !== generation.current) return;
          older.current = page.next_cursor;
          setEvents((old) => [...old, ...page.items]);
          setMore(page.next_cursor !== null);
        }
        setError(null);
      } catch (e) {
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) reading.current = false;
      }
    },
    // filterKey stands for the filters and the order: selecting an event reads nothing again.
    [token, filterKey, newestFirst],
  );
  const moreRef = useRef(more);
  moreRef.current = more;
  useEffect(() => {
    void read('fresh');
    // Live: newest first, what came since goes on top; oldest first, only once the last page is loaded, so
    // nothing is skipped.
    return onFleetChange(token, () => {
      if (newestFirst || !moreRef.current) void read('newer');
    });
  }, [token, read, newestFirst]);

  const go = (next: Partial<HistoryView>) => navigate(viewUrl({ ...view, ...next }));
  const byCorrelation = (id: string) => go({ filters: { correlation_id: id }, event: null });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    go({ filters: fromDraft(draft), event: null });
  };
  const select = (e: MouseEvent<HTMLAnchorElement>, cursor: string | null) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    go({ event: cursor });
  };
  const reports = reportsOf(filters);
  const unknownTypes = typeNames(filters.type).filter((t) => t !== '' && !KNOWN_TYPES.has(t));
  const selectedLoaded = events.find((e) => e.cursor === view.event) ?? null;
  const detail = (loaded: EventView | null) =>
    view.event && (
      <EventDetail
        key={view.event}
        token={token}
        cursor={view.event}
        loaded={loaded}
        onFilterByCorrelation={byCorrelation}
        onClose={() => go({ event: null })}
      />
    );
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
              list={f.name === 'type' ? 'event-types' : undefined}
              autoComplete="off"
              value={draft[f.name] ?? ''}
              onChange={(e) => setDraft({ ...draft, [f.name]: e.target.value })}
            />
          </div>
        ))}
        <datalist id="event-types" data-testid="event-types">
          {typeSuggestions(draft.type).map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
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
        <div className="field">
          <label htmlFor="history-order">Order</label>
          <select id="history-order" value={order} onChange={(e) => go({ order: e.target.value === 'oldest' ? 'oldest' : 'newest' })}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
          </select>
        </div>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" onClick={() => go({ filters: {}, event: null })}>
            Clear
          </button>
        </div>
      </form>
      {unknownTypes.length > 0 && (
        <p className="warn" role="note">
          No event has the type {unknownTypes.join(', ')}: the types are {FLEET_EVENT_TYPES.join(', ')}.
        </p>
      )}
      <ErrorNotice error={error} />
      {reports !== 'all' && (
        <ReportRates
          key={nodeOf(filters) ?? ''}
          token={token}
          nodeId={nodeOf(filters)}
          left={reports === 'none' ? 'all' : 'repeated'}
          onShowAll={() => go({ filters: { ...filters, reports: 'all' } })}
        />
      )}
      {!selectedLoaded && detail(null)}
      <table>
        <caption>
          {events.length} event{events.length === 1 ? '' : 's'}, {newestFirst ? 'newest first; new ones appear on top' : `oldest first${more ? '' : '; new ones appear as they happen'}`}
        </caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col">Stream</th>
            <th scope="col">Actor</th>
            <th scope="col">Correlation id</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => {
            const selected = e.cursor === view.event;
            return (
              <Fragment key={e.cursor}>
                <tr data-event-type={e.type} className={selected ? 'selected' : undefined}>
                  <td className="mono">
                    <a href={viewUrl({ ...view, event: selected ? null : e.cursor })} onClick={(m) => select(m, selected ? null : e.cursor)} aria-expanded={selected}>
                      #{e.position}
                      <span className="visually-hidden">
                        : {selected ? 'hide' : 'show'} {e.type} in full
                      </span>
                    </a>
                  </td>
                  <td>{new Date(e.recorded_at).toLocaleString()}</td>
                  <td>{e.type}</td>
                  <td className="mono">{e.stream_id}</td>
                  <td>
                    {e.metadata.actor} <span className="hint">({e.metadata.role})</span>
                  </td>
                  <td>
                    <CopyText text={e.metadata.correlation_id} what="correlation id" />{' '}
                    <button type="button" className="link" onClick={() => byCorrelation(e.metadata.correlation_id)}>
                      filter<span className="visually-hidden">: show only events of correlation id {e.metadata.correlation_id}</span>
                    </button>
                  </td>
                  <td>
                    <details>
                      <summary>Data</summary>
                      <pre>{JSON.stringify(e.data, null, 2)}</pre>
                    </details>
                    {typeof e.data.attempt_id === 'string' && !selected && (
                      <button type="button" className="secondary" onClick={() => go({ event: e.cursor })}>
                        Why?<span className="visually-hidden"> (attempt {e.data.attempt_id})</span>
                      </button>
                    )}
                  </td>
                </tr>
                {selected && (
                  <tr>
                    <td colSpan={7}>{detail(e)}</td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {more && (
        <button type="button" onClick={() => void read(newestFirst ? 'older' : 'newer')}>
          {newestFirst ? 'Load older' : 'Load more'}
        </button>
      )}
    </section>
  );
}
