import type { Io } from './io.ts';

/** Machine output: one JSON document per line. */
export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value) + '\n');
}

const cell = (v: unknown): string => (v === null || v === undefined || v === '' ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));

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
