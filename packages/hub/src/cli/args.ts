import { parseArgs } from 'node:util';
import { parseLabelPair } from '@fleetplane/core';
import { usageError } from './exit.ts';

export interface OptionDef {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** A one-letter alias, as kubectl's `-l` for `--selector`. */
  short?: string;
  /** The value's placeholder in help, e.g. `CV`. */
  value?: string;
  help: string;
}

/** What a command was given, read with the type the command expects; wrong or missing values are usage errors. */
export class Parsed {
  readonly positionals: string[];
  readonly #values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  readonly #spellings: ReadonlyMap<string, string>;
  constructor(values: Record<string, string | boolean | Array<string | boolean> | undefined>, positionals: string[], spellings: ReadonlyMap<string, string> = new Map()) {
    this.#values = values;
    this.positionals = positionals;
    this.#spellings = spellings;
  }
  /** The option as the user typed it (`-l` or `--selector`), for a message about its value. */
  spelled(name: string): string {
    return this.#spellings.get(name) ?? `--${name}`;
  }
  string(name: string): string | undefined {
    const v = this.#values[name];
    return typeof v === 'string' ? v : undefined;
  }
  required(name: string): string {
    const v = this.string(name);
    if (v === undefined || v === '') throw usageError(`--${name} is required`);
    return v;
  }
  flag(name: string): boolean {
    return this.#values[name] === true;
  }
  strings(name: string): string[] {
    const v = this.#values[name];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }
  int(name: string, min: number, max: number): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < min || n > max) throw usageError(`--${name} must be an integer from ${min} to ${max}, got ${v}`);
    return n;
  }
}

/** Parses one command's arguments strictly: an unknown option or a missing value is a usage error. */
export function parse(args: string[], options: Readonly<Record<string, OptionDef>>, positionals: { min: number; max: number }): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      tokens: true,
      options: Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type, multiple: o.multiple ?? false, ...(o.short ? { short: o.short } : {}) }])),
    });
  } catch (e) {
    throw usageError((e as Error).message);
  }
  const n = parsed.positionals.length;
  if (n < positionals.min) throw usageError(`missing argument${positionals.min - n > 1 ? 's' : ''}`);
  if (n > positionals.max) throw usageError(`unexpected argument ${parsed.positionals[positionals.max]}`);
  const spellings = new Map(parsed.tokens.flatMap((t) => (t.kind === 'option' ? [[t.name, t.rawName] as const] : [])));
  return new Parsed(parsed.values, parsed.positionals, spellings);
}

/** `a,b,c` → ['a','b','c'], empty items dropped. */
export const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * `k=v` items as a label map: the labels of `label` and the pairs of `--selector`, checked by the Hub's label
 * syntax before anything is sent.
 */
export function labelPairs(items: readonly string[], what: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const item of items) {
    const pair = parseLabelPair(item);
    if (!pair.ok) throw usageError(`${what}: ${pair.problem}`);
    map[pair.value[0]] = pair.value[1];
  }
  return map;
}
