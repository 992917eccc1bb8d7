import { z } from 'zod';
import { HttpError } from '../errors.ts';
import { OIDC_REFUSALS } from '../openapi.ts';
import { route } from '../route.ts';

const Provider = z.object({
  name: z.string(),
  issuer: z.string(),
  client_id: z.string(),
  scopes: z.array(z.string()),
  /** Where the console sends the browser to sign in; null while the issuer cannot be reached (`unavailable` says why). */
  authorization_endpoint: z.string().nullable(),
  unavailable: z.string().nullable(),
});

/**
 * Single sign-on for the console (README, "Single sign-on"): which issuers it may offer, and the exchange of
 * an authorization code for an ID token, done by the Hub so that the console talks to this Hub only.
 */
export const authRoutes = [
  route({
    method: 'get',
    path: '/api/v1/auth/providers',
    operationId: 'listAuthProviders',
    tag: 'identity',
    summary: 'The OpenID Connect issuers the console offers for sign-in, with their public client ids',
    access: 'public',
    responses: { 200: z.object({ providers: z.array(Provider) }) },
    handle: async ({ hub }) => {
      const providers = await Promise.all(
        hub.issuers.map(async (issuer) => {
          const found = await issuer.discovery().then(
            (d) => ({ authorization_endpoint: d.authorization_endpoint, unavailable: null }),
            (e: unknown) => ({ authorization_endpoint: null, unavailable: (e as Error).message }),
          );
          const { name, issuer: url, scopes } = issuer.config;
          return { name, issuer: url, client_id: issuer.clientId, scopes, ...found };
        }),
      );
      return { status: 200, body: { providers } };
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/auth/token',
    operationId: 'exchangeAuthCode',
    tag: 'identity',
    errors: { 401: ['sso_failed', ...OIDC_REFUSALS], 403: ['no_role'], 404: ['unknown_provider'], 503: ['issuer_unavailable'] },
    responseHeaders: ['Cache-Control'],
    summary: "Exchanges an authorization code (PKCE) at the issuer's token endpoint for an ID token, verified as every request's is",
    access: 'public',
    body: z
      .object({
        provider: z.string().min(1),
        code: z.string().min(1).max(4096),
        code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'an RFC 7636 code verifier'),
        redirect_uri: z.url(),
      })
      .strict(),
    responses: {
      200: z.object({ id_token: z.string(), id: z.string(), role: z.enum(['viewer', 'operator', 'admin']) }),
    },
    handle: async ({ hub, body }) => {
      const issuer = hub.issuers.find((i) => i.config.name === body.provider);
      if (issuer === undefined) throw new HttpError(404, 'unknown_provider', `no issuer named ${body.provider} is configured`);
      const { idToken, principal } = await issuer.exchange(body.code, body.code_verifier, body.redirect_uri);
      return { status: 200, body: { id_token: idToken, id: principal.id, role: principal.role as 'viewer' | 'operator' | 'admin' }, headers: { 'Cache-Control': 'no-store' } };
    },
  }),
];
