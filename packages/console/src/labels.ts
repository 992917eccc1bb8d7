import type { Labels } from './types.ts';

// The Hub's rules (SPEC F1), checked here first so the operator sees what is wrong before saving;
// the Hub answers 400 invalid_labels to anything that gets past.
export const MAX_LABELS = 16;
export const MAX_TEXT = 63;

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

// Control characters would make selectors and audit output ambiguous; the Hub refuses them too.
const CONTROL = /\p{Cc}/u;

function textProblem(what: 'Key' | 'Value', text: string): string | null {
  if (text.length === 0) return `${what} is empty: it needs 1 to ${MAX_TEXT} characters`;
  if (text.length > MAX_TEXT) return `${what} is ${text.length} characters long: at most ${MAX_TEXT}`;
  if (CONTROL.test(text)) return `${what} contains a control character`;
  return null;
}

/** Checks a label map being edited as rows; `ok` when the Hub would accept it. */
export function checkLabels(rows: readonly LabelRow[]): LabelProblems & { ok: boolean } {
  const seen = new Set<string>();
  const perRow = rows.map((r) => {
    let key = textProblem('Key', r.key);
    if (key === null && seen.has(r.key)) key = `Key "${r.key}" is used twice: keys are unique`;
    seen.add(r.key);
    return { key, value: textProblem('Value', r.value) };
  });
  const map = rows.length > MAX_LABELS ? `${rows.length} labels: a node holds at most ${MAX_LABELS}` : null;
  return { map, rows: perRow, ok: map === null && perRow.every((p) => p.key === null && p.value === null) };
}

export const toRows = (labels: Labels): LabelRow[] => Object.entries(labels).map(([key, value]) => ({ key, value }));

export const fromRows = (rows: readonly LabelRow[]): Labels => Object.fromEntries(rows.map((r) => [r.key, r.value]));
