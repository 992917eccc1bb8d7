import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { HubContext } from './context.ts';
import { consoleRouter } from './console.ts';
import { correlation } from './correlation.ts';
import { direct } from './direct.ts';
import { HttpError } from './errors.ts';
import { failure } from './failure.ts';
import { bodyLimitFor } from './body-limit.ts';
import { BODY_LIMIT, jsonBody } from './json-body.ts';
import { mount } from './mount.ts';
import { observe } from './observe.ts';
import type { RouteDef } from './route.ts';

/**
 * The Hub's HTTP surface: correlation ids, JSON bodies, the routes, the web console, and one error envelope
 * for everything; an agent's routine writes are taken before Express (direct.ts).
 */
export function createApp(hub: HubContext, routes: readonly RouteDef[], consoleDist: string): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  // The only ETag the Hub sends is a stream's generation (routes/streams.ts), not a digest of every body: no 304s.
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(correlation);
  app.use(observed(hub));
  // A route with a larger limit reads its own body, matched as its router matches it (mount.ts), for a caller
  // its token names (bodyLimitFor); anyone else's goes to the default parser below.
  for (const def of routes) {
    if (def.bodyLimit === undefined) continue;
    const parse = jsonBody(def.bodyLimit);
    app[def.method](def.path, (req: Request, res: Response, next: NextFunction) => {
      void Promise.resolve(bodyLimitFor(def, hub, req.headers)).then((limit) => (limit > BODY_LIMIT ? parse(req, res, next) : next()));
    });
  }
  app.use(jsonBody());
  const router = express.Router();
  mount(router, hub, routes);
  app.use(router);
  app.use(consoleRouter(consoleDist));
  app.use((req: Request) => {
    throw new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`);
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, body, headers } = failure(hub, err, { correlationId: res.locals.correlationId as string, method: req.method, path: req.path });
    // An answer that failed once begun (a list read as it is written) can only be cut: its caller sees it end short.
    if (res.headersSent) res.destroy();
    else res.status(status).set(headers).json(body);
  });
  return direct(hub, routes, app);
}

/** Observes each request when its answer is sent, labelled by the route it matched. */
function observed(hub: HubContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      observe(hub, {
        method: req.method,
        route: (req.route?.path as string | undefined) ?? 'unmatched',
        status: res.statusCode,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        correlationId: res.locals.correlationId as string,
        principal: res.locals.principal as string | undefined,
      });
    });
    next();
  };
}
