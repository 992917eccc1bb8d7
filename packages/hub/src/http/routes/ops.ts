import { z } from 'zod';
import { route, type RouteDef } from '../route.ts';
import { openApiDocument } from '../openapi.ts';
import type { Duty } from '../../repeated-failures.ts';

/** Said at the first scrape that leaves gauges out, then a line a minute while they are, and when all are back. */
const GAUGES_LEFT_OUT: Duty = { name: 'metrics_gauges', failed: 'metrics: gauges left out' };

const Readiness = z.object({
  ready: z.boolean(),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});

/** The document's outline: `info.version` is the Hub's. */
const OpenApiDocument = z.looseObject({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

/** Operational routes: liveness, readiness, metrics and the API description. No token needed. */
export function opsRoutes(allRoutes: () => readonly RouteDef[], version: string) {
  // Built at the first request, once: building it costs tens of milliseconds of the Hub's thread, and anyone may ask.
  let document: object | undefined;
  return [
    route({
      method: 'get',
      path: '/healthz',
      operationId: 'getHealth',
      tag: 'ops',
      summary: 'The process is up',
      access: 'public',
      responses: { 200: z.object({ status: z.literal('ok') }) },
      handle: async () => ({ status: 200, body: { status: 'ok' } }),
    }),
    route({
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      tag: 'ops',
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
      operationId: 'getMetrics',
      tag: 'ops',
      summary: 'Prometheus metrics, in the text exposition format',
      access: 'public',
      // prom-client's registry answers this type (with charset=utf-8, which Express adds).
      contentType: 'text/plain; version=0.0.4',
      responses: { 200: z.string() },
      async handle({ hub }) {
        // Always 200 (README, "Metrics and alerts"): the gauges the database could not give are left out and said.
        const { text, failures } = await hub.metrics.exposition();
        if (failures.length > 0) hub.duties.failed(GAUGES_LEFT_OUT, failures[0]!.error, { gauges: failures.map((f) => f.gauge) });
        else hub.duties.succeeded(GAUGES_LEFT_OUT);
        return { status: 200, body: text };
      },
    }),
    route({
      method: 'get',
      path: '/api/v1/openapi.json',
      operationId: 'getOpenApi',
      tag: 'ops',
      summary: 'This API, as OpenAPI 3',
      access: 'public',
      responses: { 200: OpenApiDocument },
      handle: async () => ({ status: 200, body: (document ??= openApiDocument(allRoutes(), version)) }),
    }),
  ];
}
