import { useState, type FormEvent, type ReactNode } from 'react';
import { checkLabels, fromRows, toRows, type LabelRow } from '../labels.ts';
import { resolveSelector } from '../selector.ts';
import type { ConfigVersionSummary, NewRollout, NodeView } from '../hub-api.ts';
import type { Labels } from '../labels.ts';

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
  nodes: readonly NodeView[];
  versions: readonly ConfigVersionSummary[];
  initial: RolloutDraft;
  /** Shown just before the submit button: what submitting leads to, when it is more than the label says. */
  note?: ReactNode;
  onSubmit(request: NewRollout): Promise<void>;
}) {
  const { id, nodes, initial } = props;
  const [version, setVersion] = useState(initial.config_version || props.versions[0]?.config_version || '');
  const [by, setBy] = useState<'selector' | 'nodes'>(initial.selector ? 'selector' : initial.nodes.length ? 'nodes' : 'selector');
  const [selectorRows, setSelectorRows] = useState<LabelRow[]>(initial.selector ? toRows(initial.selector) : [{ key: '', value: '' }]);
  const [picked, setPicked] = useState<string[]>(initial.nodes);
  const [batchSize, setBatchSize] = useState(String(initial.batch_size));
  const [busy, setBusy] = useState(false);
  const selectorCheck = checkLabels(selectorRows);
  const selector = selectorCheck.ok ? fromRows(selectorRows) : null;
  const resolved = by === 'selector' ? (selector ? resolveSelector(nodes, selector) : []) : picked;
  const batch = Number(batchSize);
  const batchProblem = Number.isInteger(batch) && batch >= 1 && batch <= 256 ? null : 'Batch size is a whole number from 1 to 256';
  const targetProblem =
    by === 'selector'
      ? selectorRows.length === 0
        ? 'A selector needs at least one label'
        : !selectorCheck.ok
          ? 'Every selector label needs a key and a value of 1 to 63 characters, keys unique'
          : resolved.length === 0
            ? 'No node carries these labels now: the Hub would answer no_matching_nodes'
            : null
      : picked.length === 0
        ? 'Pick at least one node'
        : null;
  const versionProblem = version ? null : 'Choose a configuration version';
  const ready = !targetProblem && !batchProblem && !versionProblem;
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
              {selector && resolved.length > 0 && (
                <>
                  Resolves now to {resolved.length} node{resolved.length > 1 ? 's' : ''}: <span className="mono">{resolved.join(', ')}</span>
                  <span className="hint"> (the Hub pins the set at creation)</span>
                </>
              )}
            </div>
          </div>
        ) : (
          <div className="node-picks">
            {nodes.map((n) => (
              <label key={n.node_id} className="inline">
                <input
                  type="checkbox"
                  checked={picked.includes(n.node_id)}
                  onChange={(e) => setPicked(e.target.checked ? [...picked, n.node_id] : picked.filter((x) => x !== n.node_id))}
                />{' '}
                {n.node_id}
              </label>
            ))}
            {picked.filter((p) => !nodes.some((n) => n.node_id === p)).map((p) => (
              <span key={p} className="hint">
                {p} (no longer registered)
              </span>
            ))}
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
