import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { admissionClass, OVERLOADED } from './admission.ts';
import { successHeaders, TAGS, type RouteDef } from './route.ts';

const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  correlation_id: z.string(),
  details: z.record(z.string(), z.unknown()),
});

type JsonSchema = Record<string, unknown>;

/**
 * The errors any route may answer, by status: the request as the HTTP server and `serve` read it (serve.ts,
 * request-error.ts, client-error.ts), its caller (401, 403), its Idempotency-Key (idempotency.ts), and the
 * Hub failing or its database away (failure.ts). A route adds its own in `errors`.
 */
function commonErrors(def: RouteDef): Map<number, Set<string>> {
  const codes: [number, string | undefined][] = [
    [400, 'invalid_request'],
    [400, def.invalidCode],
    [400, 'invalid_query'],
    [400, 'invalid_path'],
    [400, 'invalid_json'],
    [400, 'invalid_content_encoding'],
    [400, 'request_aborted'],
    [400, 'malformed_request'],
    [413, 'body_too_large'],
    [415, 'unsupported_encoding'],
    [415, 'unsupported_media_type'],
    [431, 'headers_too_large'],
    [500, 'internal'],
    [503, 'database_unavailable'],
  ];
  if (admissionClass(def) !== null) codes.push([429, OVERLOADED]);
  if (def.access !== 'public') {
    // A static token is known or not; an issuer's is verified (oidc.ts), which can find it expired or its issuer away.
    for (const code of ['unauthenticated', ...OIDC_REFUSALS]) codes.push([401, code]);
    codes.push([403, 'forbidden'], [403, 'no_role'], [503, 'issuer_unavailable']);
  }
  if (def.idempotent) codes.push([400, 'invalid_idempotency_key'], [409, 'idempotency_key_reused'], [409, 'idempotency_key_in_flight']);
  for (const [status, own] of Object.entries(def.errors ?? {})) for (const code of own ?? []) codes.push([Number(status), code]);
  const byStatus = new Map<number, Set<string>>();
  for (const [status, code] of codes) if (code) byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}

/** Why an issuer's token is refused (oidc.ts). */
export const OIDC_REFUSALS = ['token_expired', 'token_invalid', 'unknown_issuer'];

const ref = (kind: 'schemas' | 'parameters' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'X-Correlation-Id': { description: "The request's correlation id: the caller's X-Correlation-Id when well-formed, else a new one", schema: { type: 'string' } },
  ETag: { description: "The stream's generation, quoted (`\"3\"`): send it back as If-Match", schema: { type: 'string' } },
  Location: { description: 'The resource this request created', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: "`true`: the first answer to this Idempotency-Key, replayed; nothing was written again", schema: { type: 'string', enum: ['true'] } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'string' } },
  'Cache-Control': { description: 'Not to keep: the event stream is live (`no-cache`), an ID token is secret (`no-store`)', schema: { type: 'string' } },
  'X-Accel-Buffering': { description: '`no`: a proxy passes events on as they come', schema: { type: 'string' } },
  'Preference-Applied': { description: '`return=minimal`: the answer leaves out the representation, as Prefer asked', schema: { type: 'string', enum: ['return=minimal'] } },
};

const PARAMETERS = {
  'X-Correlation-Id': {
    name: 'X-Correlation-Id',
    in: 'header',
    required: false,
    description: 'Carried into every event this request records, and answered back; 1-128 of A-Z a-z 0-9 . _ : -, else the Hub makes one',
    schema: { type: 'string' },
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'A retry with the same key and body is answered with the first answer (Idempotent-Replayed: true); another body is 409',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'The generation the writer last saw (its ETag, `"3"`): another one is refused with 412 generation_conflict',
    schema: { type: 'string' },
  },
  Prefer: {
    name: 'Prefer',
    in: 'header',
    required: false,
    description:
      "`return=minimal` (RFC 7240): answered 204 with the ETag once the write commits, the stream's nodes reconciled by a job due at once rather than before the answer; other preferences are ignored",
    schema: { type: 'string' },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description: 'The id of the last event received: the stream resumes after it (takes precedence over `after`)',
    schema: { type: 'string' },
  },
};

/**
 * The OpenAPI 3 document, generated from the same route definitions and zod schemas that serve requests:
 * every header, status, error code and content type a route uses is declared on its RouteDef.
 */
export function openApiDocument(routes: readonly RouteDef[], version: string): object {
  const schemas = new Schemas();
  const paths: Record<string, Record<string, object>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters = [
      ...objectFields(r.params).map(([name, field]) => ({ name, in: 'path', required: true, schema: schemas.of(field, 'input') })),
      ...objectFields(r.query).map(([name, field]) => ({ name, in: 'query', required: false, schema: schemas.of(field, 'input') })),
      ref('parameters', 'X-Correlation-Id'),
      ...(r.idempotent ? [ref('parameters', 'Idempotency-Key')] : []),
      ...(r.requestHeaders ?? []).map((name) => ref('parameters', name)),
    ];
    const responses: Record<string, object> = {};
    for (const [status, schema] of Object.entries(r.responses)) {
      const ok = Number(status) < 300;
      const headers = [
        'X-Correlation-Id',
        ...(status === '201' ? ['Location'] : []),
        ...(ok && r.idempotent ? ['Idempotent-Replayed'] : []),
        ...(ok ? successHeaders(r, Number(status)) : []),
      ];
      const body = schema ? schemas.of(schema, 'output') : null;
      responses[status] = {
        description: STATUS_CODES[Number(status)] ?? status,
        headers: Object.fromEntries([...new Set(headers)].map((h) => [h, ref('headers', h)])),
        ...(body ? { content: { [r.contentType ?? 'application/json']: { schema: body } } } : {}),
      };
    }
    for (const [status, codes] of commonErrors(r)) {
      responses[status] ??= {
        description: [...codes].join(', '),
        headers: { 'X-Correlation-Id': ref('headers', 'X-Correlation-Id'), ...(status === 503 || codes.has(OVERLOADED) ? { 'Retry-After': ref('headers', 'Retry-After') } : {}) },
        content: {
          'application/json': { schema: { allOf: [ref('schemas', 'ErrorEnvelope'), { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } }] } },
        },
      };
    }
    paths[path] ??= {};
    paths[path][r.method] = {
      operationId: r.operationId,
      tags: [r.tag],
      summary: r.summary,
      ...(r.access === 'public' ? { security: [] } : { 'x-fleetplane-access': r.access }),
      parameters,
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemas.of(r.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Fleetplane Hub API', version },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ...schemas.named(), ErrorEnvelope: schemas.of(ErrorEnvelope, 'output') },
      parameters: PARAMETERS,
      headers: HEADERS,
    },
    security: [{ bearer: [] }],
    paths,
  };
}

/**
 * JSON schemas of zod schemas. One named with `.meta({ id })` (the views) is written once under its name in
 * `components.schemas`, which the console's types are generated from, and referenced everywhere else.
 */
class Schemas {
  readonly #named = new Map<string, { text: string; schema: JsonSchema }>();

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { definitions = {}, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' }) as JsonSchema & {
      definitions?: Record<string, JsonSchema>;
    };
    for (const [name, def] of Object.entries(definitions)) {
      const text = JSON.stringify(def);
      const known = this.#named.get(name);
      // A schema read and written differently (a default) would need two names: refused here, not documented wrong.
      if (known && known.text !== text) throw new Error(`schema ${name} differs between request and answer: name them apart`);
      this.#named.set(name, { text, schema: relinked(def) });
    }
    return relinked(json);
  }

  named(): Record<string, JsonSchema> {
    return Object.fromEntries([...this.#named].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]));
  }
}

/**
 * The schema as OpenAPI 3.0.3 reads it: zod's local `#/definitions/X` references point at `components.schemas`,
 * and a nullable enum lists null among its values (3.0.3 asks it; validators refuse null otherwise).
 */
function relinked(schema: unknown): JsonSchema {
  if (Array.isArray(schema)) return schema.map(relinked) as unknown as JsonSchema;
  if (typeof schema !== 'object' || schema === null) return schema as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' ? value.replace('#/definitions/', '#/components/schemas/') : relinked(value);
  }
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

function objectFields(schema: z.ZodType | undefined): [string, z.ZodType][] {
  return schema instanceof z.ZodObject ? Object.entries(schema.shape as Record<string, z.ZodType>) : [];
}
