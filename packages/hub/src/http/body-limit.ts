import type { IncomingHttpHeaders } from 'node:http';
import type { HubContext } from './context.ts';
import { BODY_LIMIT } from './json-body.ts';
import { bearerToken } from './principal.ts';
import type { RouteDef } from './route.ts';

/**
 * The body a request may send: its route's own limit (`RouteDef.bodyLimit`) when its bearer token names a
 * known credential, else the default. The body is read before the caller is served, so a larger limit for
 * anyone would let an unknown client make the Hub hold that much per connection; a stranger's large body is
 * 413 at the default, a small one 401 as before. An issuer's token is a promise: the limit waits for its
 * verification, so an operator signed in through OpenID Connect sends what a static credential may.
 */
export function bodyLimitFor(def: RouteDef, hub: HubContext, headers: IncomingHttpHeaders): number | Promise<number> {
  // A body the default takes needs no look at the token here: serving it authenticates it once.
  const larger = def.bodyLimit;
  if (larger === undefined || Number(headers['content-length']) <= BODY_LIMIT) return BODY_LIMIT;
  const token = bearerToken(headers.authorization);
  const principal = token === null ? null : hub.authenticate(token);
  if (principal instanceof Promise) return principal.then(() => larger, () => BODY_LIMIT);
  return principal !== null ? larger : BODY_LIMIT;
}
