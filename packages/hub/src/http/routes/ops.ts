import { z } from 'zod';
import { route, type RouteDef } from '../route.ts';
import { openApiDocument } from '../openapi.ts';

const Readiness = z.object({
  ready: z.boolean(),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});

/** Operational routes: liveness, readiness, metrics and the API description. No token needed. */
export function opsRoutes(allRoutes: () => readonly RouteDef[], version: string) {
  return [
    route({
      method: 'get',
      path: '/healthz',
      summary: 'The process is up',
      access: 'public',
      responses: { 200: z.object({ status: z.literal('ok') }) },
      handle: async () => ({ status: 200, body: { status: 'ok' } }),
    }),
    route({
      method: 'get',
      path: '/readyz',
      summary: 'Database reachable, migrations current, workers running',
      access: 'public',
      responses: { 200: Readiness, 503: Readiness },
      async handle({ hub }) {
        const report = await hub.ready();
        return { status: report.ready ? 200 : 503, body: report };
      },
    }),
    route({
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics',
      access: 'public',
      responses: { 200: null },
      async handle({ hub }) {
        const { text, contentType } = await hub.metrics.exposition();
        return { status: 200, body: text, contentType };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/openapi.json',
      summary: 'This API, as OpenAPI 3',
      access: 'public',
      responses: { 200: null },
      handle: async () => ({ status: 200, body: openApiDocument(allRoutes(), version) }),
    }),
  ];
}
