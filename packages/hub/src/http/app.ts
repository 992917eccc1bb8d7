import express, { type NextFunction, type Request, type Response } from 'express';
import type { HubContext } from './context.ts';
import { consoleRouter } from './console.ts';
import { correlation } from './correlation.ts';
import { HttpError, type ErrorEnvelope } from './errors.ts';
import { jsonBody } from './json-body.ts';
import { mount, type RouteDef } from './route.ts';

/** The Hub's HTTP surface: correlation ids, JSON bodies, the routes, the web console, and one error envelope for everything. */
export function createApp(hub: HubContext, routes: readonly RouteDef[], consoleDist: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(correlation);
  app.use(observe(hub));
  app.use(jsonBody());
  const router = express.Router();
  mount(router, hub, routes);
  app.use(router);
  app.use(consoleRouter(consoleDist));
  app.use((req: Request) => {
    throw new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`);
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = asHttpError(err);
    const correlationId = res.locals.correlationId as string;
    if (error.status >= 500) {
      hub.logger.error('request failed', { correlation_id: correlationId, method: req.method, path: req.path, error: err });
    }
    const body: ErrorEnvelope = { code: error.code, message: error.message, correlation_id: correlationId, details: error.details };
    res.status(error.status).json(body);
  });
  return app;
}

function asHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const e = err as { type?: string; status?: number };
  if (e.type === 'entity.parse.failed') return new HttpError(400, 'invalid_json', 'the request body is not valid JSON');
  if (e.type === 'entity.too.large') return new HttpError(413, 'body_too_large', 'the request body is larger than 1 MB');
  if (e.type === 'charset.unsupported' || e.type === 'encoding.unsupported') {
    return new HttpError(415, 'unsupported_encoding', 'send the body as UTF-8 JSON');
  }
  return new HttpError(500, 'internal', 'the Hub failed to handle this request; see its log for the correlation id');
}

/**
 * Routes a fleet calls all the time: agents' registrations, reports, polls and results, and probes and
 * scrapes. Answered well, they log at debug, not info: at fleet scale they would be most of the log (a
 * 50,000-node fleet reports 5,000 times a second) and a tenth of the Hub's CPU. Their failures log at info.
 */
const routine = (route: string): boolean => route.startsWith('/api/v1/agent/') || route === '/healthz' || route === '/readyz' || route === '/metrics';

/** Logs one line per request and feeds the HTTP metrics, labelled by route pattern, not raw path. */
function observe(hub: HubContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const routePath = (req.route?.path as string | undefined) ?? 'unmatched';
      hub.metrics.httpRequests.inc({ method: req.method, route: routePath, status: String(res.statusCode) });
      hub.metrics.httpDuration.observe(seconds, { method: req.method, route: routePath });
      const level = res.statusCode < 400 && routine(routePath) ? 'debug' : 'info';
      // Off by default for a fleet's routine requests: not even the line is built (winston filters it late).
      if (!hub.logger.isLevelEnabled(level)) return;
      hub.logger.log(level, 'request', {
        correlation_id: res.locals.correlationId,
        method: req.method,
        route: routePath,
        status: res.statusCode,
        ms: Math.round(seconds * 1000),
        principal: res.locals.principal,
      });
    });
    next();
  };
}
