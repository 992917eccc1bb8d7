import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { HttpError } from './errors.ts';

/** Where `npm ci` (the root `prepare` script) builds the web console. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// Paths the console never answers, so an unknown API route stays a JSON 404 and operations keep their own.
const NOT_CONSOLE = /^\/(api(\/|$)|healthz$|readyz$|metrics$)/;

// The console talks to this Hub only, loads nothing inline and is never framed.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the web console's built files at `/`, and its index.html for any other GET a browser navigates
 * to (client routes such as /fleet), after the API routes had their turn. Hashed assets are cached for good;
 * index.html is revalidated so a new Hub version is picked up at once.
 */
export function consoleRouter(dist: string): Router {
  const router = express.Router();
  const index = join(dist, 'index.html');
  router.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_CONSOLE.test(req.path)) return next();
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.use('/assets', express.static(join(dist, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use('/assets', (req: Request) => {
    throw new HttpError(404, 'not_found', `no console asset ${req.path}`);
  });
  // A string pattern (not a RegExp): the request metrics label routes by their path pattern.
  router.get('/{*path}', (req: Request, res: Response, next: NextFunction) => {
    if (NOT_CONSOLE.test(req.path) || !req.accepts('html')) return next();
    if (!existsSync(index)) {
      res.status(404).type('text/plain').send('The web console is not built: run `npm ci` (or `npm run build -w packages/console`) and restart.\n');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
