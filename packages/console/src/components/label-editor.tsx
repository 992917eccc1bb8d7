import { useState } from 'react';
import { MAX_LABELS } from '@fleetplane/core/label-syntax';
import { checkLabels, fromRows, toRows, type LabelRow } from '../labels.ts';
import type { Labels } from '../labels.ts';

/**
 * Edits a node's whole label map in place. The 16 × 1-63 rules are checked as the operator types, each
 * problem next to its field; Save is offered only for a map the Hub would accept.
 */
export function LabelEditor(props: { nodeId: string; labels: Labels; onSave(labels: Labels): Promise<void>; onCancel(): void }) {
  const [rows, setRows] = useState<LabelRow[]>(() => toRows(props.labels));
  const [saving, setSaving] = useState(false);
  const check = checkLabels(rows);
  const set = (i: number, patch: Partial<LabelRow>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const id = (i: number, part: string) => `labels-${props.nodeId}-${i}-${part}`;
  const save = async () => {
    setSaving(true);
    try {
      await props.onSave(fromRows(rows));
    } finally {
      setSaving(false);
    }
  };
  const problems = check.rows.flatMap((p) => [p.key, p.value]).filter((p) => p !== null).length + (check.map ? 1 : 0);
  return (
    <fieldset className="label-editor">
      <legend>Labels of {props.nodeId}</legend>
      {rows.length === 0 && <p className="hint">No labels.</p>}
      {rows.map((r, i) => {
        const p = check.rows[i]!;
        return (
          <div className="label-row" key={i}>
            <div className="field">
              <label htmlFor={id(i, 'key')}>Key {i + 1}</label>
              <input
                id={id(i, 'key')}
                value={r.key}
                aria-invalid={p.key !== null}
                aria-describedby={p.key ? id(i, 'key-error') : undefined}
                onChange={(e) => set(i, { key: e.target.value })}
              />
              {p.key && (
                <span className="field-error" id={id(i, 'key-error')}>
                  {p.key}
                </span>
              )}
            </div>
            <div className="field">
              <label htmlFor={id(i, 'value')}>Value {i + 1}</label>
              <input
                id={id(i, 'value')}
                value={r.value}
                aria-invalid={p.value !== null}
                aria-describedby={p.value ? id(i, 'value-error') : undefined}
                onChange={(e) => set(i, { value: e.target.value })}
              />
              {p.value && (
                <span className="field-error" id={id(i, 'value-error')}>
                  {p.value}
                </span>
              )}
            </div>
            <button type="button" className="secondary" aria-label={`Remove label ${i + 1}${r.key ? ` (${r.key})` : ''}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
              Remove
            </button>
          </div>
        );
      })}
      {check.map && <p className="field-error">{check.map}</p>}
      <div className="actions">
        <button type="button" className="secondary" disabled={rows.length >= MAX_LABELS} onClick={() => setRows([...rows, { key: '', value: '' }])}>
          Add label
        </button>
        {rows.length >= MAX_LABELS && <span className="hint">A node holds at most {MAX_LABELS} labels.</span>}
        <button type="button" disabled={!check.ok || saving} onClick={save}>
          Save labels
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <span role="status" className="hint">
          {problems > 0 ? `${problems} problem${problems > 1 ? 's' : ''} to fix before saving` : ''}
        </span>
      </div>
    </fieldset>
  );
}
