import { Fragment, useEffect, useState, type FormEvent } from 'react';
import { api, type Page } from '../api.ts';
import { Pager } from '../components/pager.tsx';
import { StateBadge } from '../components/badge.tsx';
import { LabelEditor } from '../components/label-editor.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { mayOperate } from '../role.ts';
import { navigate, useScrollToHash, useSearch } from '../router.tsx';
import type { Session } from '../session.ts';
import type { NodeCounts, NodeView, ReconciliationSettings } from '../hub-api.ts';
import type { Labels } from '../labels.ts';
import { useResource } from '../use-resource.ts';

// The filters of GET /nodes the page offers, kept in its URL (/fleet?liveness=offline) as History keeps its own.
const FILTERS = ['search', 'selector', 'liveness', 'maintenance'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;
const PAGE_SIZE = 100;

function readFilters(search: string): Filters {
  const q = new URLSearchParams(search);
  const filters: Filters = {};
  for (const name of FILTERS) {
    const v = q.get(name)?.trim();
    if (v) filters[name] = v;
  }
  // A link to one node (/fleet#node-edge-7, from what a rollout target waits on) shows it, wherever it falls.
  if (!q.size && location.hash.startsWith('#node-')) filters.search = decodeURIComponent(location.hash.slice('#node-'.length));
  return filters;
}

const filterQuery = (filters: Filters) => new URLSearchParams(filters as Record<string, string>).toString();

/**
 * One page of nodes (liveness, maintenance, mode, configuration and labels) as the Hub filters them, and how
 * many the filters select: a reload reads those two, never the whole fleet. Operators edit labels and drain.
 */
export function FleetPage({ session }: { session: Session }) {
  const filters = readFilters(useSearch());
  const query = filterQuery(filters);
  // The cursors of the pages before this one, and this one's (null: the first page).
  const [pages, setPages] = useState<(string | null)[]>([null]);
  useEffect(() => setPages([null]), [query]);
  const cursor = pages.at(-1) ?? null;
  const nodes = useResource(
    session.token,
    () => api<Page<NodeView>>(session.token, 'GET', `/api/v1/nodes?limit=${PAGE_SIZE}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
    `${query}|${cursor}`,
  );
  const counts = useResource(session.token, () => api<NodeCounts>(session.token, 'GET', `/api/v1/node-counts${query ? `?${query}` : ''}`), query);
  const mode = useResource(session.token, () => api<ReconciliationSettings>(session.token, 'GET', '/api/v1/settings/reconciliation'));
  useScrollToHash(nodes.data !== null);
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(readFilters(location.search)), [query]);
  const apply = (next: Filters) => {
    const q = filterQuery(Object.fromEntries(Object.entries(next).filter(([, v]) => v?.trim())) as Filters);
    navigate(`/fleet${q ? `?${q}` : ''}`);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(draft);
  };
  const [editing, setEditing] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState('');
  const operate = mayOperate(session.role);
  const act = async (what: string, call: () => Promise<unknown>) => {
    setActionError(null);
    setNotice('');
    try {
      await call();
      setNotice(what);
      nodes.reload();
    } catch (e) {
      setActionError(e);
      throw e;
    }
  };
  const saveLabels = (nodeId: string) => async (labels: Labels) => {
    await act(`Saved the labels of ${nodeId}.`, () => api(session.token, 'PUT', `/api/v1/nodes/${encodeURIComponent(nodeId)}/labels`, { labels })).then(
      () => setEditing(null),
      () => undefined,
    );
  };
  const maintenance = (n: NodeView) => {
    const action = n.maintenance === 'draining' ? 'undrain' : 'drain';
    void act(`${action === 'drain' ? 'Draining' : 'Undrained'} ${n.node_id}.`, () => api(session.token, 'POST', `/api/v1/nodes/${encodeURIComponent(n.node_id)}/${action}`)).catch(() => undefined);
  };
  return (
    <section aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      {mode.data && (
        <p className="hint">
          Reconciliation mode: <strong>{mode.data.mode}</strong> ({mode.data.source === 'file' ? "the Hub's configuration file" : 'set by an operator'}); a
          node override wins on that node.
        </p>
      )}
      <ErrorNotice error={nodes.error} />
      <ErrorNotice error={actionError} />
      <p role="status" className="notice">
        {notice}
      </p>
      <form className="panel filters" onSubmit={submit} aria-label="Filter nodes">
        <div className="field">
          <label htmlFor="fleet-search">Node id contains</label>
          <input id="fleet-search" value={draft.search ?? ''} autoComplete="off" onChange={(e) => setDraft({ ...draft, search: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="fleet-selector">Label selector</label>
          <input id="fleet-selector" placeholder="e.g. env=prod,tier=edge" autoComplete="off" value={draft.selector ?? ''} onChange={(e) => setDraft({ ...draft, selector: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="fleet-liveness">Liveness</label>
          <select id="fleet-liveness" value={filters.liveness ?? ''} onChange={(e) => apply({ ...filters, liveness: e.target.value })}>
            <option value="">Any</option>
            <option value="online">Online</option>
            <option value="stale">Stale</option>
            <option value="offline">Offline</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="fleet-maintenance">Maintenance</label>
          <select id="fleet-maintenance" value={filters.maintenance ?? ''} onChange={(e) => apply({ ...filters, maintenance: e.target.value })}>
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="draining">Draining</option>
          </select>
        </div>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="button" className="secondary" onClick={() => apply({})}>
            Clear
          </button>
        </div>
      </form>
      {counts.data && (
        <p data-testid="node-counts">
          {counts.data.total} node{counts.data.total === 1 ? '' : 's'}
          {query ? ' match' : ''}: {counts.data.liveness.online} online, {counts.data.liveness.stale} stale, {counts.data.liveness.offline} offline;{' '}
          {counts.data.maintenance.draining} draining
        </p>
      )}
      {nodes.data && nodes.data.items.length === 0 && <p>{query ? 'No node matches these filters.' : 'No node has registered yet.'}</p>}
      {nodes.data && nodes.data.items.length > 0 && (
        <table>
          <caption>
            Nodes {(pages.length - 1) * PAGE_SIZE + 1}–{(pages.length - 1) * PAGE_SIZE + nodes.data.items.length}
            {counts.data ? ` of ${counts.data.total}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Liveness</th>
              <th scope="col">Maintenance</th>
              <th scope="col">Mode</th>
              <th scope="col">Configuration</th>
              <th scope="col">Labels</th>
              {operate && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {nodes.data.items.map((n) => (
              <Fragment key={n.node_id}>
                <tr data-node={n.node_id} id={`node-${n.node_id}`}>
                  <th scope="row">{n.node_id}</th>
                  <td>
                    <StateBadge state={n.liveness} />
                  </td>
                  <td>
                    <StateBadge state={n.maintenance} />
                  </td>
                  <td>
                    {n.mode}
                    {n.mode_override && <span className="hint"> (node override)</span>}
                  </td>
                  <td className="mono">
                    {n.applied_config_version ?? '—'}
                    {n.desired_config_version && n.desired_config_version !== n.applied_config_version && (
                      <span className="hint"> → {n.desired_config_version}</span>
                    )}
                  </td>
                  <td>
                    <ul className="chips" aria-label={`Labels of ${n.node_id}`}>
                      {Object.entries(n.labels).map(([k, v]) => (
                        <li key={k} className="chip">
                          {k}={v}
                        </li>
                      ))}
                    </ul>
                  </td>
                  {operate && (
                    <td className="actions">
                      <button type="button" className="secondary" onClick={() => setEditing(editing === n.node_id ? null : n.node_id)} aria-expanded={editing === n.node_id}>
                        Edit labels<span className="visually-hidden"> of {n.node_id}</span>
                      </button>
                      <button type="button" className="secondary" onClick={() => maintenance(n)}>
                        {n.maintenance === 'draining' ? 'Undrain' : 'Drain'}
                        <span className="visually-hidden"> {n.node_id}</span>
                      </button>
                    </td>
                  )}
                </tr>
                {editing === n.node_id && (
                  <tr>
                    <td colSpan={7}>
                      <LabelEditor nodeId={n.node_id} labels={n.labels} onSave={saveLabels(n.node_id)} onCancel={() => setEditing(null)} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
      {nodes.data && <Pager label="Pages of nodes" pages={pages} next={nodes.data.next_cursor} onPages={setPages} />}
    </section>
  );
}
