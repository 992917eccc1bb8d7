import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, type Page } from '../api.ts';
import { checkLabels, fromRows, toRows, type LabelRow } from '../labels.ts';
import type { ConfigVersionSummary, NewRollout, NodeCounts, NodeView } from '../hub-api.ts';
import type { Labels } from '../labels.ts';
import { useResource } from '../use-resource.ts';

// How many nodes the form names at once: a selector's preview, the nodes offered to pick. The Hub finds them.
const SHOWN = 20;
// Typing waits this long before the Hub is asked.
const TYPING_MS = 300;

/** `text`, once it has stayed the same TYPING_MS. */
function useSettled(text: string): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setSettled(text), TYPING_MS);
    return () => clearTimeout(t);
  }, [text]);
  return settled;
}

/** The nodes a selector resolves to now, as the Hub resolves it (SPEC F3, F5): how many, and the first by id. */
async function resolveOnHub(token: string, selectorText: string): Promise<{ selector: string; total: number; first: string[] }> {
  const q = `selector=${encodeURIComponent(selectorText)}`;
  const [counts, page] = await Promise.all([
    api<NodeCounts>(token, 'GET', `/api/v1/node-counts?${q}`),
    api<Page<NodeView>>(token, 'GET', `/api/v1/nodes?${q}&limit=${SHOWN}`),
  ]);
  return { selector: selectorText, total: counts.total, first: page.items.map((n) => n.node_id) };
}

/** What the form starts from: empty, or a rejected request being republished. */
export interface RolloutDraft {
  config_version: string;
  nodes: string[];
  selector: Labels | null;
  batch_size: number;
}

export const emptyDraft: RolloutDraft = { config_version: '', nodes: [], selector: null, batch_size: 1 };

/**
 * A configuration version, its targets (explicit nodes, or a selector with a live preview of the nodes it
 * resolves to now) and a batch size. Used to create a rollout and to submit or republish an approval request.
 */
export function RolloutForm(props: {
  id: string;
  title: string;
  submitLabel: string;
  token: string;
  versions: readonly ConfigVersionSummary[];
  initial: RolloutDraft;
  /** Shown just before the submit button: what submitting leads to, when it is more than the label says. */
  note?: ReactNode;
  onSubmit(request: NewRollout): Promise<void>;
}) {
  const { id, token, initial } = props;
  const [version, setVersion] = useState(initial.config_version || props.versions[0]?.config_version || '');
  const [by, setBy] = useState<'selector' | 'nodes'>(initial.selector ? 'selector' : initial.nodes.length ? 'nodes' : 'selector');
  const [selectorRows, setSelectorRows] = useState<LabelRow[]>(initial.selector ? toRows(initial.selector) : [{ key: '', value: '' }]);
  const [picked, setPicked] = useState<string[]>(initial.nodes);
  const [batchSize, setBatchSize] = useState(String(initial.batch_size));
  const [busy, setBusy] = useState(false);
  const selectorCheck = checkLabels(selectorRows);
  const selector = selectorCheck.ok ? fromRows(selectorRows) : null;
  const selectorText = selector && selectorRows.length > 0 ? Object.entries(selector).map(([k, v]) => `${k}=${v}`).join(',') : '';
  const settledSelector = useSettled(by === 'selector' ? selectorText : '');
  const preview = useResource(token, () => (settledSelector ? resolveOnHub(token, settledSelector) : Promise.resolve(null)), settledSelector);
  // The preview is of the selector as typed, not one before it.
  const resolved = preview.data?.selector === selectorText && !preview.error ? preview.data : null;
  const [find, setFind] = useState('');
  const settledFind = useSettled(find.trim());
  const offered = useResource(
    token,
    () => (by === 'nodes' ? api<Page<NodeView>>(token, 'GET', `/api/v1/nodes?limit=${SHOWN}${settledFind ? `&search=${encodeURIComponent(settledFind)}` : ''}`) : Promise.resolve(null)),
    `${by}|${settledFind}`,
  );
  const batch = Number(batchSize);
  const batchProblem = Number.isInteger(batch) && batch >= 1 && batch <= 256 ? null : 'Batch size is a whole number from 1 to 256';
  const targetProblem =
    by === 'selector'
      ? selectorRows.length === 0
        ? 'A selector needs at least one label'
        : !selectorCheck.ok
          ? 'Every selector label needs a key and a value of 1 to 63 characters, keys unique'
          : resolved?.total === 0
            ? 'No node carries these labels now: the Hub would answer no_matching_nodes'
            : null
      : picked.length === 0
        ? 'Pick at least one node'
        : null;
  const versionProblem = version ? null : 'Choose a configuration version';
  const ready = !targetProblem && !batchProblem && !versionProblem && (by === 'nodes' || resolved !== null);
  const setRow = (i: number, patch: Partial<LabelRow>) => setSelectorRows(selectorRows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    try {
      await props.onSubmit({ config_version: version, targets: by === 'selector' ? { selector: selector! } : { nodes: picked }, batch_size: batch });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1}>
        {props.title}
      </h2>
      <div className="field">
        <label htmlFor={`${id}-version`}>Configuration version</label>
        <select id={`${id}-version`} value={version} onChange={(e) => setVersion(e.target.value)}>
          {!version && <option value="">Choose…</option>}
          {props.versions.map((v) => (
            <option key={v.config_version} value={v.config_version}>
              {v.config_version} ({v.format}, {new Date(v.created_at).toLocaleString()})
            </option>
          ))}
        </select>
        {versionProblem && <span className="field-error">{versionProblem}</span>}
      </div>
      <fieldset>
        <legend>Targets</legend>
        <label className="inline">
          <input type="radio" name={`${id}-by`} checked={by === 'selector'} onChange={() => setBy('selector')} /> By label selector
        </label>
        <label className="inline">
          <input type="radio" name={`${id}-by`} checked={by === 'nodes'} onChange={() => setBy('nodes')} /> Explicit nodes
        </label>
        {by === 'selector' ? (
          <div>
            {selectorRows.map((r, i) => (
              <div className="label-row" key={i}>
                <div className="field">
                  <label htmlFor={`${id}-sel-${i}-key`}>Selector key {i + 1}</label>
                  <input id={`${id}-sel-${i}-key`} value={r.key} onChange={(e) => setRow(i, { key: e.target.value })} />
                </div>
                <div className="field">
                  <label htmlFor={`${id}-sel-${i}-value`}>Selector value {i + 1}</label>
                  <input id={`${id}-sel-${i}-value`} value={r.value} onChange={(e) => setRow(i, { value: e.target.value })} />
                </div>
                <button type="button" className="secondary" aria-label={`Remove selector label ${i + 1}`} onClick={() => setSelectorRows(selectorRows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </div>
            ))}
            <button type="button" className="secondary" onClick={() => setSelectorRows([...selectorRows, { key: '', value: '' }])}>
              Add selector label
            </button>
            <div className="preview" aria-live="polite" data-testid={`${id}-preview`}>
              {selector && resolved && resolved.total > 0 && (
                <>
                  Resolves now to {resolved.total} node{resolved.total > 1 ? 's' : ''}:{' '}
                  <span className="mono">
                    {resolved.first.join(', ')}
                    {resolved.total > resolved.first.length && `, … (the first ${resolved.first.length} by id)`}
                  </span>
                  <span className="hint"> (the Hub pins the set at creation)</span>
                </>
              )}
            </div>
          </div>
        ) : (
          <div className="node-picks">
            {picked.length > 0 && (
              <fieldset>
                <legend>Picked ({picked.length})</legend>
                {picked.map((p) => (
                  <label key={p} className="inline">
                    <input type="checkbox" checked onChange={() => setPicked(picked.filter((x) => x !== p))} /> {p}
                  </label>
                ))}
              </fieldset>
            )}
            <div className="field">
              <label htmlFor={`${id}-find`}>Find nodes (text in the id)</label>
              <input id={`${id}-find`} autoComplete="off" value={find} onChange={(e) => setFind(e.target.value)} />
            </div>
            {offered.data?.items
              .filter((n) => !picked.includes(n.node_id))
              .map((n) => (
                <label key={n.node_id} className="inline">
                  <input type="checkbox" checked={false} onChange={() => setPicked([...picked, n.node_id])} /> {n.node_id}
                </label>
              ))}
            {offered.data?.next_cursor && <p className="hint">The first {SHOWN} nodes by id{settledFind ? ' with that text' : ''}: type more of an id to find others.</p>}
          </div>
        )}
        {targetProblem && <p className="field-error">{targetProblem}</p>}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-batch`}>Batch size</label>
        <input id={`${id}-batch`} type="number" min={1} max={256} value={batchSize} onChange={(e) => setBatchSize(e.target.value)} />
        {batchProblem && <span className="field-error">{batchProblem}</span>}
      </div>
      {props.note && (
        <p className="warn" role="note">
          {props.note}
        </p>
      )}
      <button type="submit" disabled={!ready || busy}>
        {props.submitLabel}
      </button>
    </form>
  );
}
