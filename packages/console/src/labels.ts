import { labelKeyProblem, labelValueProblem, MAX_LABELS } from '@fleetplane/core/label-syntax';
import type { NodeView } from './hub-api.ts';

/** A node's labels, as the Hub answers and takes them. */
export type Labels = NodeView['labels'];

// The Hub's rules (SPEC F1; @fleetplane/core's label-syntax), checked here first so the operator sees what is
// wrong before saving; the Hub answers 400 invalid_labels to anything that gets past.
export interface LabelRow {
  key: string;
  value: string;
}

export interface LabelProblems {
  /** About the whole map (too many labels). */
  map: string | null;
  /** Per row, in row order: what is wrong with its key and its value. */
  rows: Array<{ key: string | null; value: string | null }>;
}

const problem = (what: 'Key' | 'Value', text: string, check: (text: string) => string | null): string | null => {
  const p = check(text);
  return p === null ? null : `${what} ${p}`;
};

/** Checks a label map being edited as rows; `ok` when the Hub would accept it. */
export function checkLabels(rows: readonly LabelRow[]): LabelProblems & { ok: boolean } {
  const seen = new Set<string>();
  const perRow = rows.map((r) => {
    let key = problem('Key', r.key, labelKeyProblem);
    if (key === null && seen.has(r.key)) key = `Key "${r.key}" is used twice: keys are unique`;
    seen.add(r.key);
    return { key, value: problem('Value', r.value, labelValueProblem) };
  });
  const map = rows.length > MAX_LABELS ? `${rows.length} labels: a node holds at most ${MAX_LABELS}` : null;
  return { map, rows: perRow, ok: map === null && perRow.every((p) => p.key === null && p.value === null) };
}

export const toRows = (labels: Labels): LabelRow[] => Object.entries(labels).map(([key, value]) => ({ key, value }));

export const fromRows = (rows: readonly LabelRow[]): Labels => Object.fromEntries(rows.map((r) => [r.key, r.value]));
