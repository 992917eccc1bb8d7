import { z } from 'zod';
import type { RouteDef } from './route.ts';

const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  correlation_id: z.string(),
  details: z.record(z.string(), z.unknown()),
});

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' });

/** The OpenAPI 3 document, generated from the same route definitions and zod schemas that serve requests. */
export function openApiDocument(routes: readonly RouteDef[], version: string): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const parameters = [
      ...objectKeys(r.params).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...objectKeys(r.query).map((name) => ({ name, in: 'query', required: false, schema: queryFieldSchema(r.query!, name) })),
    ];
    const responses: Record<string, object> = {};
    for (const [status, schema] of Object.entries(r.responses)) {
      responses[status] = schema
        ? { description: 'OK', content: { 'application/json': { schema: jsonSchema(schema, 'output') } } }
        : { description: 'OK' };
    }
    const errors = r.access === 'public' ? ['400'] : ['400', '401', '403'];
    for (const status of errors) {
      responses[status] ??= { description: 'Error', content: { 'application/json': { schema: jsonSchema(ErrorEnvelope, 'output') } } };
    }
    paths[path] ??= {};
    paths[path][r.method] = {
      summary: r.summary,
      ...(r.access === 'public' ? { security: [] } : { 'x-fleetplane-access': r.access }),
      ...(parameters.length ? { parameters } : {}),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Fleetplane Hub API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

function objectKeys(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function queryFieldSchema(schema: z.ZodType, name: string): object {
  const field = (schema as z.ZodObject).shape[name] as z.ZodType;
  return jsonSchema(field, 'input');
}
