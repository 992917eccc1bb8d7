import { labelKeyProblem, labelValueProblem } from './label-syntax.ts';

type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** One `key=value` as an operator types it, checked by the label syntax. */
export function parseLabelPair(item: string): Parsed<[string, string]> {
  const i = item.indexOf('=');
  if (i <= 0) return { ok: false, problem: `takes key=value pairs, got ${JSON.stringify(item)}` };
  const [key, value] = [item.slice(0, i), item.slice(i + 1)];
  const keyProblem = labelKeyProblem(key);
  if (keyProblem) return { ok: false, problem: `key ${JSON.stringify(key)} ${keyProblem}` };
  const valueProblem = labelValueProblem(value);
  if (valueProblem) return { ok: false, problem: `value ${JSON.stringify(value)} of ${key} ${valueProblem}` };
  return { ok: true, value: [key, value] };
}

/**
 * A selector as text, `env=prod,tier=edge` (equality on every pair, SPEC F3), as a query parameter and the CLI
 * spell it. The label syntax keeps `=` and `,` out of keys and values, so the text reads one way.
 */
export function parseSelectorText(text: string): Parsed<Record<string, string>> {
  // A Map, not an object: a key such as `constructor` is a label key, not something the object inherits.
  const selector = new Map<string, string>();
  for (const item of text.split(',')) {
    const pair = parseLabelPair(item);
    if (!pair.ok) return pair;
    const [key, value] = pair.value;
    const asked = selector.get(key);
    if (asked !== undefined && asked !== value) return { ok: false, problem: `asks ${key} to be both ${asked} and ${value}` };
    selector.set(key, value);
  }
  return { ok: true, value: Object.fromEntries(selector) };
}
