import { api, type Page } from '../api.ts';
import type { ReportRateView } from '../hub-api.ts';
import { useResource } from '../use-resource.ts';
import { ErrorNotice } from './notice.tsx';

// Each reload counts every shown node's reports of the last hour in the log; rates by the minute and hour need
// no fresher reading than this.
const RATES_SPACED_MS = 30_000;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `edge-1: 360 reports in the last hour, 3 changed; 6 in the last minute; last #1234 at …`. */
function rateLine(r: ReportRateView): string {
  const last = r.last_report_at === null ? 'never reported' : `last #${r.last_report_seq} at ${new Date(r.last_report_at).toLocaleString()}`;
  if (r.last_hour.reports === 0) return `${r.node_id}: no report in the last hour; ${last}`;
  const minute = (c: ReportRateView['last_minute']) => `${c.reports} in the last minute${c.changed > 0 ? ` (${c.changed} changed)` : ''}`;
  return `${r.node_id}: ${plural(r.last_hour.reports, 'report')} in the last hour, ${r.last_hour.changed} changed; ${minute(r.last_minute)}; ${last}`;
}

/** One node's rate, from GET /nodes/{id}, or the first page of every node's. */
async function loadRates(token: string, nodeId: string | null): Promise<Page<ReportRateView>> {
  if (nodeId === null) return api<Page<ReportRateView>>(token, 'GET', '/api/v1/report-rates?limit=100');
  const node = await api<Omit<ReportRateView, 'last_minute' | 'last_hour'> & { reports: Pick<ReportRateView, 'last_minute' | 'last_hour'> }>(
    token,
    'GET',
    `/api/v1/nodes/${encodeURIComponent(nodeId)}`,
  );
  return { items: [{ node_id: node.node_id, last_report_seq: node.last_report_seq, last_report_at: node.last_report_at, ...node.reports }], next_cursor: null };
}

/**
 * In place of the reports History leaves out, how often each node reports: one line a node, kept current as
 * the fleet changes. `nodeId` narrows it to one node (History filtered on the node's stream).
 */
export function ReportRates({ token, nodeId, left, onShowAll }: { token: string; nodeId: string | null; left: 'repeated' | 'all'; onShowAll: () => void }) {
  const { data, error } = useResource(token, () => loadRates(token, nodeId), '', RATES_SPACED_MS);
  return (
    <section className="panel" aria-labelledby="report-rates-title" data-testid="report-rates">
      <h2 id="report-rates-title">Report rates</h2>
      <p>
        {left === 'repeated' ? "Reports that repeated their node's last state are left out. " : 'Reports are left out. '}
        <button type="button" className="secondary" onClick={onShowAll}>
          Show every report
        </button>
      </p>
      <ErrorNotice error={error} />
      {data && data.items.length === 0 && <p className="hint">No node has registered.</p>}
      {data && data.items.length > 0 && (
        <ul className="report-rates">
          {data.items.map((r) => (
            <li key={r.node_id} data-node={r.node_id}>
              {rateLine(r)}
            </li>
          ))}
        </ul>
      )}
      {data?.next_cursor && <p className="hint">The first 100 nodes by id: filter on a node's stream (node:ID) for another.</p>}
    </section>
  );
}
