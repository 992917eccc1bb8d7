import fc from 'fast-check';
import { parse as parseQuery } from 'node:querystring';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { hintedValue, hostileText, hostileValue, jsonText, validValue, type Hints, type KeySpelling, type Schema } from './json-values.ts';

/**
 * Requests for one operation of the Hub's OpenAPI document, most of them malformed: hostile path ids and
 * query values, wrong or missing tokens, bodies of the wrong shape or with unstorable text, in other
 * content types, charsets, codings and framings. Each says whether the Hub must refuse it whatever else
 * holds (`mustRefuse`): text PostgreSQL cannot store, a "__proto__" key or nesting too deep, where it reads.
 */

export interface Operation {
  method: string;
  /** OpenAPI path template: `/api/v1/nodes/{id}`. */
  path: string;
  /** `public`, `agent`, or the least operator role. */
  access: string;
  parameters: { name: string; in: 'path' | 'query'; schema: Schema }[];
  body: Schema | null;
}

/** The operations of an OpenAPI document as the Hub writes it (routes/ops.ts), its named schemas written out in place. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } }): Operation[] {
  const inPlace = (value: any): any => {
    if (Array.isArray(value)) return value.map(inPlace);
    if (typeof value !== 'object' || value === null) return value;
    if (typeof value.$ref === 'string' && value.$ref.startsWith('#/components/schemas/')) return inPlace(doc.components.schemas[value.$ref.split('/').at(-1)]);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inPlace(v)]));
  };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      access: op['x-fleetplane-access'] ?? 'public',
      parameters: inPlace(op.parameters ?? []),
      body: inPlace(op.requestBody?.content['application/json'].schema ?? null),
    })),
  );
}

/** What the fuzz knows of the fleet under test: ids that exist, values of fields by name, and tokens. */
export interface Fleet {
  /** Ids that exist, by the collection a path names before `{id}` (`nodes`, `streams`, `attempts`…). */
  ids: Record<string, string[]>;
  hints: Hints;
  /** The token of a caller the operation admits, and of one it refuses (null: every caller is admitted). */
  tokens(access: string): { admitted: string | null; refused: string | null };
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  chunked: boolean;
  /** Why the Hub must refuse this request (never answer it 2xx), or null. */
  mustRefuse: string | null;
  /** The request in short, for a failure's message. */
  summary: string;
}

/** Path ids as a hostile client writes them: bad percent-encoding, NUL, overlong UTF-8, long, odd. */
const HOSTILE_IDS = [
  '%ff', '%', '%E0%A4%A', '%ED%A0%BD', '%00', 'edge-1%00', '%C0%80', '%u0000', '%EF%BF%BF', '%F0%9F%98%80', '%2F', '%2e%2e', '..', '.',
  '%20', '%0A', '%0D%0A', "'", '%27%3B--', '+', '%2B', '~', '%25', '%25%30%30', 'x'.repeat(201), 'x'.repeat(5000), 'EDGE-1',
];

/** Query values as a hostile client writes them, already percent-encoded. */
const HOSTILE_QUERY = [
  '%00', 'a%00b', '%ff', '%', '%E0%A4%A', '%ED%A0%BD', '%C0%80', '%u0000', '-1', '0', '1e400', 'NaN', 'Infinity', '0x10', '1.5', '%20',
  '99999999999999999999', 'x'.repeat(5000), '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '9999-12-31T23:59:59.999999999%2B23:59',
  '2026-11-30T12:00:00.0009Z', 'x%7Cy', '%7C', '%2B275760-09-13T00:00:00.000Z%7Cx', '-271821-04-20T00:00:00.000Z%7Cx',
  '0000-01-01T00:00:00.000Z%7Cx', '2026-13-01%7Cx', '1-1', '99999999999999999999-1', '18446744073709551616-1', '0-9007199254740993',
];

const randomBytesEncoded = fc.uint8Array({ minLength: 1, maxLength: 6 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));

function pathOf(op: Operation, fleet: Fleet): fc.Arbitrary<{ path: string; fault: string | null }> {
  const slots = op.parameters.filter((p) => p.in === 'path');
  if (slots.length === 0) return fc.oneof({ arbitrary: fc.constant(op.path), weight: 9 }, { arbitrary: fc.constant(`${op.path}/`), weight: 1 }).map((path) => ({ path, fault: null }));
  const collection = /\/([^/]+)\/\{/.exec(op.path)![1]!;
  const known = fleet.ids[collection] ?? [];
  const id = fc.oneof(
    { arbitrary: known.length ? fc.constantFrom(...known).map(encodeURIComponent) : fc.constant('unknown'), weight: 4 },
    { arbitrary: fc.constantFrom(...HOSTILE_IDS), weight: 3 },
    { arbitrary: randomBytesEncoded, weight: 1 },
  );
  return fc.tuple(id, fc.constantFrom('', '', '', '', '/')).map(([raw, tail]) => withId(op, raw, tail));
}

/** The path of `op` with `raw` (percent-encoded as sent) as its id. */
const withId = (op: Operation, raw: string, tail = '') => ({ path: op.path.replace(/\{\w+\}/, raw) + tail, fault: unstorableParameter(raw) });

/** Why the Hub must refuse a percent-encoded path parameter, or null. */
function unstorableParameter(raw: string): string | null {
  try {
    return unstorable(decodeURIComponent(raw));
  } catch {
    return 'bad percent-encoding';
  }
}

function unstorable(text: string): string | null {
  if (text.includes('\0')) return 'NUL';
  return text.isWellFormed() ? null : 'lone surrogate';
}

function queryOf(op: Operation, fleet: Fleet): fc.Arbitrary<{ query: string; fault: string | null }> {
  const params = op.parameters.filter((p) => p.in === 'query');
  const value = (p: Operation['parameters'][number]) =>
    fc.oneof(
      { arbitrary: fc.constant<string[]>([]), weight: 4 },
      { arbitrary: validValue(p.schema, fleet.hints, p.name).map((v) => [v].flat().map((x) => encodeURIComponent(String(x)))), weight: 4 },
      { arbitrary: fc.constantFrom(...HOSTILE_QUERY).map((v) => [v]), weight: 2 },
      { arbitrary: fc.tuple(fc.constantFrom(...HOSTILE_QUERY), fc.constantFrom('1', 'a')).map((vs) => vs), weight: 1 },
    );
  const unknown = fc.oneof({ arbitrary: fc.constant(''), weight: 8 }, { arbitrary: fc.constantFrom('extra=1', '%00=1', 'a%ff=b', '=x', '&&', 'x'), weight: 1 });
  return fc
    .tuple(fc.tuple(...params.map((p) => value(p).map((vs) => vs.map((v) => `${p.name}=${v}`)))), unknown)
    .map(([pairs, extra]) => queryString([...pairs.flat(), ...(extra ? [extra] : [])].join('&')));
}

/** A query as sent, and why the Hub must refuse it, as its parser reads it. */
function queryString(query: string): { query: string; fault: string | null } {
  const texts = Object.entries(parseQuery(query)).flatMap(([k, v]) => [k, ...[v ?? ''].flat()]);
  return { query: query ? `?${query}` : '', fault: texts.map(unstorable).find((f) => f !== null) ?? null };
}

/** What the body says it is, and how it is sent. */
interface Framing {
  contentType: string | null;
  charset: 'utf8' | 'utf16le';
  coding: 'none' | 'identity' | 'gzip' | 'deflate' | 'br' | 'fake-gzip' | 'fake-deflate' | 'fake-br' | 'unknown' | 'gzip, br';
  chunked: boolean;
}

const framing: fc.Arbitrary<Framing> = fc.record({
  contentType: fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 12 },
    {
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'application/json; charset=utf-16le',
        'application/json; charset=latin1',
        'application/json; charset=',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/merge-patch+json',
        null,
      ),
      weight: 3,
    },
  ),
  charset: fc.constant('utf8' as const),
  coding: fc.oneof(
    { arbitrary: fc.constant('none' as const), weight: 12 },
    { arbitrary: fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'fake-gzip', 'fake-deflate', 'fake-br', 'unknown', 'gzip, br') as fc.Arbitrary<Framing['coding']>, weight: 3 },
  ),
  chunked: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
}).map((f) => ({ ...f, charset: f.contentType?.includes('utf-16le') ? ('utf16le' as const) : ('utf8' as const) }));

/** Bodies that are not JSON the Hub takes: blank, scalars, broken, invalid UTF-8, over the 1 MB limit. */
const GARBAGE: (string | Buffer)[] = [
  '', ' ', 'null', '"text"', '42', 'true', '{', '{"a":', '{"a":1}}', '{"a":1,}', "{'a':1}", '{"a":1}\u0000', '\ufeff{}', '{"a":1} // c',
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from('{"labels":{"env":"\xed\xa0\x80"}}', 'latin1'), Buffer.from([0x7b, 0x22, 0xc0, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
  `[${'0,'.repeat(600_000)}0]`,
];

function bodyOf(op: Operation, fleet: Fleet): fc.Arbitrary<{ text: string | Buffer; keys: KeySpelling } | null> {
  const spelling = fc.oneof({ arbitrary: fc.constant<KeySpelling>('plain'), weight: 6 }, { arbitrary: fc.constantFrom<KeySpelling>('escaped-proto', 'escaped-keys'), weight: 2 });
  const json = (value: fc.Arbitrary<unknown>) => fc.tuple(value, spelling).map(([v, keys]) => ({ text: jsonText(v, keys), keys }));
  const garbage = fc.constantFrom(...GARBAGE).map((text) => ({ text, keys: 'plain' as KeySpelling }));
  if (op.body === null) {
    return fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: json(hostileValue({ type: 'object' }, fleet.hints)), weight: 1 }, { arbitrary: garbage, weight: 1 });
  }
  return fc.oneof(
    { arbitrary: json(validValue(op.body, fleet.hints)), weight: 3 },
    { arbitrary: json(hostileValue(op.body, fleet.hints)), weight: 6 },
    { arbitrary: json(fc.record({ any: hostileText })), weight: 1 },
    { arbitrary: garbage, weight: 1 },
  );
}

const encode = (text: string | Buffer, f: Framing): Buffer => {
  const bytes = typeof text === 'string' ? Buffer.from(text, f.charset) : text;
  switch (f.coding) {
    case 'gzip':
      return gzipSync(bytes);
    case 'deflate':
      return deflateSync(bytes);
    case 'br':
      return brotliCompressSync(bytes);
    default:
      return bytes;
  }
};

const CODING_HEADER: Record<Framing['coding'], string | null> = {
  none: null,
  identity: 'identity',
  gzip: 'gzip',
  deflate: 'deflate',
  br: 'br',
  'fake-gzip': 'gzip',
  'fake-deflate': 'deflate',
  'fake-br': 'br',
  unknown: 'x-unknown',
  'gzip, br': 'gzip, br',
};

/** Why the Hub must refuse the body as it will read it, or null when it reads no JSON from it. */
function bodyFault(text: string | Buffer, f: Framing): string | null {
  const json = f.contentType !== null && /^application\/json(; charset=(utf-8|utf-16le))?$/.test(f.contentType);
  if (!json || !['none', 'identity', 'gzip', 'deflate', 'br'].includes(f.coding)) return null;
  const decoded = typeof text === 'string' ? text : text.toString(f.charset);
  let value: unknown;
  try {
    value = JSON.parse(decoded.replace(/^\ufeff/, ''));
  } catch {
    return null;
  }
  return faultIn(value, 1);
}

/** The oracle's own walk: recursive, and stopped past 64 levels, so it never goes deep. */
function faultIn(value: unknown, depth: number): string | null {
  if (typeof value === 'string') return unstorable(value);
  if (typeof value !== 'object' || value === null) return null;
  if (depth > 64) return 'nested deeper than 64';
  for (const [k, v] of Object.entries(value)) {
    if (!Array.isArray(value) && (k === '__proto__' || unstorable(k))) return k === '__proto__' ? '"__proto__" key' : `key ${unstorable(k)}`;
    const fault = faultIn(v, depth + 1);
    if (fault) return fault;
  }
  return null;
}

const HEADER_CHOICES = {
  correlation: fc.oneof({ arbitrary: fc.constant(null), weight: 9 }, { arbitrary: fc.constantFrom('', 'x'.repeat(200), 'a b', '%00', 'ü'), weight: 1 }),
  idempotency: fc.oneof(
    { arbitrary: fc.constant(null), weight: 3 },
    { arbitrary: fc.constant('unique'), weight: 2 },
    { arbitrary: fc.constantFrom('x'.repeat(300), 'ä', ' spaced ', '', 'fuzz-shared-key'), weight: 1 },
  ),
  ifMatch: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom('"1"', '*', 'W/"x"', '"99999999999999999"', '1, 2'), weight: 1 }),
  lastEventId: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom('garbage', '1-1', '99999999999999999999-1', ''), weight: 1 }),
  accept: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.constantFrom('text/html', '*/*', 'application/xml'), weight: 1 }),
  token: fc.oneof(
    { arbitrary: fc.constant('admitted'), weight: 12 },
    { arbitrary: fc.constantFrom('refused', 'none', 'unknown', 'Bearer', 'Basic YTpi', 'Bearer a b'), weight: 2 },
  ),
};

/** The choices one request is made of. */
interface Parts {
  method: string;
  path: { path: string; fault: string | null };
  query: { query: string; fault: string | null };
  body: { text: string | Buffer; keys: KeySpelling } | null;
  framing: Framing;
  /** `admitted`, `refused`, `none`, `unknown`, or an Authorization header as written. */
  token: string;
  correlation: string | null;
  idempotency: string | null;
  ifMatch: string | null;
  lastEventId: string | null;
  accept: string | null;
}

/**
 * Requests for `op` (now and then with another method: HEAD and OPTIONS, answered without a body or a
 * route, are not among them); `next` numbers them, for unique correlation ids and idempotency keys.
 */
export function requestsFor(op: Operation, fleet: Fleet, next: () => number): fc.Arbitrary<FuzzRequest> {
  const h = HEADER_CHOICES;
  const parts: fc.Arbitrary<Parts> = fc.record({
    method: fc.oneof({ arbitrary: fc.constant(op.method), weight: 12 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), weight: 1 }),
    path: pathOf(op, fleet),
    query: queryOf(op, fleet),
    body: bodyOf(op, fleet),
    framing,
    token: h.token,
    correlation: h.correlation,
    idempotency: h.idempotency,
    ifMatch: h.ifMatch,
    lastEventId: h.lastEventId,
    accept: h.accept,
  });
  return parts.map((p) => assemble(op, fleet, next(), p));
}

/**
 * A well-formed request, then the same with every hostile path id in the path, and with every hostile query
 * value in each query parameter alone: a value that fails only where the others pass is sent whatever the
 * random runs draw. `wellFormed` picks its body among values sampled from the schema and the fleet's values.
 */
export function sweepFor(op: Operation, fleet: Fleet, next: () => number, seed: number, wellFormed: (body: unknown) => boolean): FuzzRequest[] {
  const known = Object.values(fleet.ids).flat();
  const id = (fleet.ids[/\/([^/]+)\/\{/.exec(op.path)?.[1] ?? ''] ?? known)[0] ?? 'unknown';
  const samples = op.body === null ? [] : fc.sample(hintedValue(op.body, fleet.hints), { numRuns: 100, seed });
  const body = op.body === null ? null : { text: jsonText(samples.find(wellFormed) ?? samples[0]), keys: 'plain' as const };
  const base: Parts = {
    method: op.method,
    path: withId(op, encodeURIComponent(id)),
    query: { query: '', fault: null },
    body,
    framing: { contentType: 'application/json', charset: 'utf8', coding: 'none', chunked: false },
    token: 'admitted',
    correlation: null,
    idempotency: null,
    ifMatch: null,
    lastEventId: null,
    accept: null,
  };
  const ids = op.path.includes('{') ? HOSTILE_IDS.map((raw) => ({ ...base, path: withId(op, raw) })) : [];
  const queries = op.parameters
    .filter((p) => p.in === 'query')
    .flatMap((p) => HOSTILE_QUERY.map((v) => ({ ...base, query: queryString(`${p.name}=${v}`) })));
  return [base, ...ids, ...queries].map((p) => assemble(op, fleet, next(), p));
}

function assemble(op: Operation, fleet: Fleet, n: number, r: Parts): FuzzRequest {
  const { admitted, refused } = fleet.tokens(op.access);
  const headers: Record<string, string> = {};
  const set = (name: string, value: string | null) => value !== null && (headers[name] = value);
  const bearer = (token: string | null) => (token === null ? null : `Bearer ${token}`);
  const tokens: Record<string, string | null> = { admitted: bearer(admitted), refused: bearer(refused), none: null, unknown: bearer('unknown-token') };
  set('authorization', r.token in tokens ? tokens[r.token]! : r.token);
  set('x-correlation-id', r.correlation ?? `fuzz.${n}`);
  set('idempotency-key', r.idempotency === 'unique' ? `fuzz-key-${n}` : r.idempotency);
  set('if-match', r.ifMatch);
  set('last-event-id', r.lastEventId);
  set('accept', r.accept);
  let body: Buffer | undefined;
  let bodyReason: string | null = null;
  if (r.body !== null) {
    set('content-type', r.framing.contentType);
    set('content-encoding', CODING_HEADER[r.framing.coding]);
    body = encode(r.body.text, r.framing);
    bodyReason = bodyFault(r.body.text, r.framing);
  }
  const shown = r.body === null ? '' : ` ${headers['content-type'] ?? '-'} ${headers['content-encoding'] ?? ''}${r.framing.chunked ? ' chunked' : ''} ${describeBody(r.body.text)}`;
  return {
    method: r.method,
    path: r.path.path + r.query.query,
    headers,
    ...(body !== undefined ? { body } : {}),
    chunked: r.framing.chunked,
    mustRefuse: r.path.fault ?? r.query.fault ?? bodyReason,
    summary: `${r.method} ${(r.path.path + r.query.query).slice(0, 300)} [${r.token}]${shown}`,
  };
}

const describeBody = (text: string | Buffer) => {
  const s = typeof text === 'string' ? text : `<bytes ${text.toString('hex').slice(0, 80)}>`;
  return JSON.stringify(s.length > 400 ? `${s.slice(0, 200)}…(${s.length} chars)…${s.slice(-100)}` : s);
};
