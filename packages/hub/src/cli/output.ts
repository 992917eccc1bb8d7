import type { Io } from './io.ts';

/** Machine output: one JSON document per line. */
export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value) + '\n');
}

// What a terminal acts on rather than prints: C0 controls (ESC starts sequences that retitle the window, write
// the clipboard or move the cursor; CR and LF forge lines), DEL, C1 controls (U+009B is CSI to some terminals)
// and the bidirectional overrides and isolates, which reorder what is shown.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text the CLI did not write itself (a node's report, another operator's reason, a Hub's message) as a
 * terminal should show it: every control character spelled as a JSON escape (`\u001b`), so hostile text is
 * seen, never obeyed. Human output only: --json prints values exact, as JSON.
 */
export const shown = (text: string): string => text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const cell = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : shown(typeof v === 'object' ? JSON.stringify(v) : String(v)));

/** Aligned columns under an upper-case header; null, undefined and empty cells show as `-`. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly unknown[]>): string {
  const cells = [header.map((h) => h.toUpperCase()), ...rows.map((r) => r.map(cell))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd() + '\n').join('');
}

/** One `field: value` line per pair, values aligned: a single resource at a glance. */
export function fields(pairs: ReadonlyArray<readonly [string, unknown]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length)) + 1;
  return pairs.map(([k, v]) => `${(k + ':').padEnd(width)} ${cell(v)}\n`).join('');
}

/** `env=prod,tier=edge`: a label map in one cell. */
export const labelText = (labels: Readonly<Record<string, string>> | null): string =>
  labels ? Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',') : '';
