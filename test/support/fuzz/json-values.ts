import fc from 'fast-check';

/**
 * Values for an OpenAPI (JSON Schema) request body: ones that follow the schema, and hostile ones made from
 * them by one change somewhere (a wrong type, an unstorable or huge text, a key too many or missing, deep
 * nesting, a "__proto__" key). Written out by `jsonText`, which can also spell keys with escapes.
 */

/** A subset of JSON Schema, as zod's toJSONSchema writes the API's schemas (target openapi-3.0). */
export interface Schema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  enum?: unknown[];
  nullable?: boolean;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
}

/** JSON text spliced in as is: numbers JSON.parse turns into Infinity, nesting too deep to build as a value. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** Values a field of this name takes in the fleet under test (its ids), so valid requests reach its state. */
export type Hints = Record<string, fc.Arbitrary<unknown>>;

/** Text the Hub must refuse or hold faithfully: NUL, lone surrogates, control and odd characters, escapes. */
export const HOSTILE_TEXT = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\udc00\ud800',
  '\ufffe\uffff',
  '\ufeff',
  '\u202eevil',
  '\u0001\u001f\u007f',
  '\u0085\u2028',
  '😀',
  'é',
  '%00',
  '%ff',
  "'; DROP TABLE events; --",
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '\\',
  '"',
  '\r\n',
  ' ',
  '',
  '__proto__',
  'constructor',
  '9007199254740993',
];

/** Text as a hostile client sends it: from HOSTILE_TEXT, huge, or any UTF-16 code units (lone surrogates too). */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)), maxLength: 20 }),
  fc.constantFrom(201, 4097, 70_000).map((n) => 'x'.repeat(n)),
);

/** Nesting deeper than the Hub takes, written as text: the test process never builds it as a value. */
export const deeplyNested = (depth: number, inner = '1') => new RawJson('['.repeat(depth) + inner + ']'.repeat(depth));

/** Anything in place of a value of another type. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, -0, 2 ** 53 + 2, 1e21, '', 'x', [], {}, [[]], { a: {} }),
  fc.constantFrom('1e400', '-1e400', '1E2', '0.0000001', '-0.0', '123456789012345678901234567890').map((t) => new RawJson(t)),
  fc.constantFrom(65, 1_000, 10_000, 100_000).map((d) => deeplyNested(d)),
  fc.constantFrom(65, 10_000).map((d) => deeplyNested(d, '{"__proto__":{}}')),
  fc.constantFrom(10_001).map((n) => Array.from({ length: n }, () => 'x')),
  hostileText,
);

/** Keys a hostile client adds: prototype names, empty, unstorable, long. */
const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'a\u0000', '\ud800', 'x'.repeat(300), 'extra'),
  fc.string({ maxLength: 8 }),
);

/** How values are drawn: hints mostly, or hints only (and no optional field without one). */
interface Draw {
  hints: Hints;
  onlyHints: boolean;
}

/** A value that follows the schema (as far as a generator can: patterns are approximated). */
export const validValue = (schema: Schema, hints: Hints, name = ''): fc.Arbitrary<unknown> => drawn(schema, { hints, onlyHints: false }, name);

/** A value that follows the schema made of the fleet's own values where it has them: a request meant to succeed. */
export const hintedValue = (schema: Schema, hints: Hints): fc.Arbitrary<unknown> => drawn(schema, { hints, onlyHints: true }, '');

function drawn(schema: Schema, draw: Draw, name: string): fc.Arbitrary<unknown> {
  const hint = schema.enum ? undefined : draw.hints[name];
  const base = hint && draw.onlyHints ? hint : hint ? fc.oneof({ arbitrary: hint, weight: 3 }, { arbitrary: generic(schema, draw, name), weight: 1 }) : generic(schema, draw, name);
  return schema.nullable && !draw.onlyHints ? fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : base;
}

function generic(schema: Schema, draw: Draw, name: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => drawn(s, draw, name)));
  switch (schema.type) {
    case 'string':
      return schema.pattern ? patterned(schema) : fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 16, 16) });
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1000;
      const max = schema.maximum ?? 1000;
      // Mostly small numbers, and now and then a bound itself (2^53 - 1 for a sequence number).
      return fc.oneof({ arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }), weight: 4 }, { arbitrary: fc.constantFrom(min, max), weight: 1 });
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(drawn(schema.items ?? {}, draw, name), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'object':
      return objectValue(schema, draw);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectValue(schema: Schema, draw: Draw): fc.Arbitrary<unknown> {
  const required = schema.required ?? [];
  const properties = Object.entries(schema.properties ?? {}).filter(([k]) => !draw.onlyHints || required.includes(k) || k in draw.hints);
  const additional = draw.onlyHints ? false : schema.additionalProperties;
  const declared =
    properties.length === 0 ? fc.constant({}) : fc.record(Object.fromEntries(properties.map(([k, s]) => [k, drawn(s, draw, k)])), { requiredKeys: draw.onlyHints ? properties.map(([k]) => k) : required });
  if (additional === undefined || additional === false) return declared;
  const values = additional === true || Object.keys(additional).length === 0 ? fc.jsonValue({ maxDepth: 2 }) : drawn(additional, draw, '');
  const keys = fc.oneof(fc.constantFrom('env', 'tier', 'zone'), fc.string({ minLength: 1, maxLength: 8 }));
  return fc.tuple(declared, fc.dictionary(keys, values, { maxKeys: 3 })).map(([d, extra]) => ({ ...extra, ...(d as object) }));
}

/** The API's patterns are a host:port, a label's printable text and an RFC 3339 time: written by example. */
function patterned(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.pattern!.includes(':\\d{1,5}')) return fc.tuple(fc.constantFrom('edge-1.local', '10.0.0.7', '[::1]'), fc.integer({ min: 1, max: 65535 })).map(([h, p]) => `${h}:${p}`);
  return fc.string({ minLength: 1, maxLength: Math.min(schema.maxLength ?? 16, 16) }).filter((s) => /^[^\p{Cc}]+$/u.test(s));
}

/** A change somewhere in a value: one node replaced, a key added or removed. */
type Change = { kind: 'replace'; value: unknown } | { kind: 'add'; key: string; value: unknown } | { kind: 'drop' };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), value: wrongValue }),
  fc.record({ kind: fc.constant('add' as const), key: hostileKey, value: fc.oneof(fc.constant('x'), wrongValue) }),
  fc.constant({ kind: 'drop' as const }),
);

/** A value of the schema with one hostile change (a few times, several) somewhere in it. */
export function hostileValue(schema: Schema, hints: Hints): fc.Arbitrary<unknown> {
  const changes = fc.array(fc.tuple(fc.nat(), change), { minLength: 1, maxLength: 3 });
  return fc.tuple(validValue(schema, hints), changes).map(([value, cs]) => cs.reduce((v, [at, c]) => changed(v, at, c), copy(value)));
}

/** A copy that keeps own "__proto__" keys as keys and RawJson as is. */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value instanceof RawJson || typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
}

/** `value` with `c` applied at its node number `at` (pre-order, modulo their count); changes in place. */
function changed(value: unknown, at: number, c: Change): unknown {
  const nodes: { holder: Record<string | number, unknown> | null; key: string | number; value: unknown }[] = [];
  const visit = (holder: Record<string | number, unknown> | null, key: string | number, v: unknown) => {
    nodes.push({ holder, key, value: v });
    if (v instanceof RawJson || typeof v !== 'object' || v === null) return;
    for (const [k, child] of Object.entries(v)) visit(v as Record<string, unknown>, Array.isArray(v) ? Number(k) : k, child);
  };
  visit(null, '', value);
  const node = nodes[at % nodes.length]!;
  const put = (v: unknown) => (node.holder === null ? v : ((node.holder[node.key] = v), value));
  const target = node.value;
  // The pool's values are shared between runs: a change inserts a copy, never the value itself.
  const inserted = c.kind === 'drop' ? undefined : copy(c.value);
  if (c.kind === 'replace') return put(inserted);
  const isObject = typeof target === 'object' && target !== null && !(target instanceof RawJson);
  if (c.kind === 'add') {
    if (Array.isArray(target)) target.push(inserted);
    else if (isObject) Object.defineProperty(target, c.key, { value: inserted, enumerable: true, writable: true, configurable: true });
    else return put(Object.fromEntries([[c.key, inserted]]));
    return value;
  }
  if (Array.isArray(target)) target.pop();
  else if (isObject) delete (target as Record<string, unknown>)[Object.keys(target)[at % Math.max(1, Object.keys(target).length)]!];
  else return put(undefined);
  return value;
}

/** How keys are spelled in the text: as JSON.stringify writes them, "__proto__" with escapes, or every key with escapes. */
export type KeySpelling = 'plain' | 'escaped-proto' | 'escaped-keys';

const escaped = (key: string) => `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;

/** JSON text of a value holding RawJson; undefined members are left out, as JSON.stringify does. */
export function jsonText(value: unknown, spelling: KeySpelling = 'plain'): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : jsonText(v, spelling))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const key = (k: string) => (spelling === 'escaped-keys' || (spelling === 'escaped-proto' && k === '__proto__') ? escaped(k) : JSON.stringify(k));
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([k, v]) => `${key(k)}:${jsonText(v, spelling)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
