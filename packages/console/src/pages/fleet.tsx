import { Fragment, useState } from 'react';
import { api, listAll } from '../api.ts';
import { StateBadge } from '../components/badge.tsx';
import { LabelEditor } from '../components/label-editor.tsx';
import { ErrorNotice } from '../components/notice.tsx';
import { mayOperate } from '../role.ts';
import { useScrollToHash } from '../router.tsx';
import type { Session } from '../session.ts';
import type { NodeView, ReconciliationSettings } from '../hub-api.ts';
import type { Labels } from '../labels.ts';
import { useResource } from '../use-resource.ts';

/** Every node: liveness, maintenance, mode, configuration and labels; operators edit labels and drain. */
export function FleetPage({ session }: { session: Session }) {
  const nodes = useResource(session.token, () => listAll<NodeView>(session.token, '/api/v1/nodes'));
  const mode = useResource(session.token, () => api<ReconciliationSettings>(session.token, 'GET', '/api/v1/settings/reconciliation'));
  useScrollToHash(nodes.data !== null);
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
      {nodes.data && nodes.data.length === 0 && <p>No node has registered yet.</p>}
      {nodes.data && nodes.data.length > 0 && (
        <table>
          <caption>{nodes.data.length} nodes</caption>
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
            {nodes.data.map((n) => (
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
    </section>
  );
}
