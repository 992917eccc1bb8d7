/** How the benchmarks' reports print their figures, and their Markdown tables. */

/** A count or a rate, rounded, with thousands separators: 12,345. */
export function count(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

/** Milliseconds, with the precision that matters at their size: 0.93 ms, 27.2 ms, 1,734 ms. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '–';
  return `${x < 10 ? x.toFixed(2) : x < 1000 ? x.toFixed(1) : count(x)} ms`;
}

/** Seconds: 1.38 s, 56.5 s. */
export function seconds(s: number): string {
  return Number.isFinite(s) ? `${s.toFixed(s < 10 ? 2 : 1)} s` : '–';
}

/** A ratio as a percentage, a decimal below 10% (or `decimals` of them): 3.3%, 50%, 139%. */
export function percent(x: number, decimals = x < 0.1 ? 1 : 0): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(decimals)}%` : '–';
}

/** A goal's verdict. */
export function verdict(met: boolean): string {
  return met ? 'PASS' : 'BELOW';
}

/** Text shown as code in a table cell, cut to `max` characters (a statement's text). */
export function codeCell(text: string, max = 110): string {
  const cut = text.length > max ? text.slice(0, max - 3) + '…' : text;
  return `\`${cut.replace(/\|/g, '\\|')}\``;
}

/** A Markdown table: its head, the separator, a line per row. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)];
}
