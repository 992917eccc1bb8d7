// A real OpenID provider (oidc-provider, with its development login page) for the single sign-on tests, run by
// test/support/openid-provider.ts as a process of its own: oidc-provider is ESM and runs as Node loads it.
// Any login and password signs in; an account's groups are the ones its setup names.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Provider, { type JWK } from 'oidc-provider';

interface Setup {
  port: number;
  issuer: string;
  keys: JWK[];
  accounts: Record<string, string[]>;
  clients: { client_id: string; redirect_uris: string[] }[];
  tls?: { cert: string; key: string };
}

const setup = JSON.parse(process.env.OPENID_PROVIDER_SETUP!) as Setup;
const { issuer } = setup;

const provider = new Provider(issuer, {
  clients: setup.clients.map((c) => ({ ...c, token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'] })),
  jwks: { keys: setup.keys },
  cookies: { keys: ['openid-provider-test-cookie-key'] },
  claims: { openid: ['sub'], groups: ['groups'] },
  // Scope claims in the ID token too, as Dex and most issuers put groups there.
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: true } },
  // A first-party client: the login page is the only step (no consent page), as Dex's skipApprovalScreen.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
    grant.addOIDCScope('openid groups');
    await grant.save();
    return grant;
  },
  async findAccount(_ctx, sub) {
    return { accountId: sub, claims: async () => ({ sub, groups: setup.accounts[sub] ?? [] }) };
  },
});
const ready = () => process.stdout.write(`OpenID provider ready on ${issuer}\n`);
if (setup.tls) createServer({ cert: readFileSync(setup.tls.cert), key: readFileSync(setup.tls.key) }, provider.callback()).listen(setup.port, ready);
else provider.listen(setup.port, ready);
