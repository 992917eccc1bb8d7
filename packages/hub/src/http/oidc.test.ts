import { ConfigFile, hashToken } from '../config.ts';
import { HttpError } from './errors.ts';
import { issuersFor, oidcVerifier, Issuer } from './oidc.ts';
import { authenticator } from './principal.ts';
import { freePort } from '../../../../test/support/ports.ts';
import { signingKey, startOpenIdProvider, type OpenIdProvider } from '../../../../test/support/openid-provider.ts';

// Issue 23 item 1: ID tokens of a real OpenID provider (oidc-provider, in a process of its own), verified
// against its discovery document and JWKS.

jest.setTimeout(60_000);

const roles = { 'fleet-ops': 'operator', 'fleet-admins': 'admin', staff: 'viewer' } as const;

function issuerConfig(issuer: string, audience = 'fleetplane') {
  return ConfigFile.parse({ control_api: { oidc: [{ name: 'corp', issuer, audience, roles }] } }).control_api.oidc[0]!;
}

/** The refusal `promise` rejects with (an HttpError), or a failure when it admits the token. */
async function refusal(promise: Promise<unknown> | null): Promise<HttpError> {
  const outcome = await Promise.resolve(promise).then(
    (admitted) => new Error(`admitted as ${JSON.stringify(admitted)}`),
    (e: unknown) => e,
  );
  if (!(outcome instanceof HttpError)) throw outcome;
  return outcome;
}

describe('OpenID Connect ID tokens (issue 23 item 1)', () => {
  let provider: OpenIdProvider;
  beforeAll(async () => {
    provider = await startOpenIdProvider({ accounts: {}, clients: [{ client_id: 'fleetplane', redirect_uris: ['http://localhost/sign-in/callback'] }] });
  });
  afterAll(async () => {
    await provider?.stop();
  });

  it('maps groups to the highest role they are given; the principal is the subject, under the issuer name', async () => {
    const issuer = new Issuer(issuerConfig(provider.issuer));
    await expect(issuer.verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff', 'fleet-ops'] }))).resolves.toEqual({ id: 'corp:alice', role: 'operator', nodeId: null });
    await expect(issuer.verify(await provider.sign({ sub: 'bob', aud: 'fleetplane', groups: ['fleet-admins', 'staff'] }))).resolves.toEqual({ id: 'corp:bob', role: 'admin', nodeId: null });
    const none = await refusal(issuer.verify(await provider.sign({ sub: 'eve', aud: 'fleetplane', groups: ['contractors'] })));
    expect([none.status, none.code]).toEqual([403, 'no_role']);
  });

  it('refuses an expired token, another audience, another issuer and a key the issuer does not publish (401)', async () => {
    const verify = oidcVerifier([new Issuer(issuerConfig(provider.issuer))]);
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = await refusal(verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'], iat: past - 600, exp: past })));
    expect([expired.status, expired.code]).toEqual([401, 'token_expired']);
    const audience = await refusal(verify(await provider.sign({ sub: 'alice', aud: 'another-app', groups: ['staff'] })));
    expect([audience.status, audience.code, audience.details.claim]).toEqual([401, 'token_invalid', 'aud']);
    const other = await refusal(verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'], iss: 'https://other.example' }, signingKey())));
    expect([other.status, other.code]).toEqual([401, 'unknown_issuer']);
    const forged = await refusal(verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['fleet-admins'] }, signingKey())));
    expect([forged.status, forged.code]).toEqual([401, 'token_invalid']);
  });

  it('verifies tokens of a rotated key after fetching the keys again, and no longer those of the retired key', async () => {
    const issuer = new Issuer(issuerConfig(provider.issuer), { refetchCooldownMs: 0 });
    const before = await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] });
    await expect(issuer.verify(before)).resolves.toMatchObject({ id: 'corp:alice' });
    const retired = provider.keys[0]!;
    await provider.rotate([signingKey()]);
    await expect(issuer.verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] }))).resolves.toMatchObject({ id: 'corp:alice' });
    const old = await refusal(issuer.verify(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] }, retired)));
    expect([old.status, old.code]).toEqual([401, 'token_invalid']);
  });

  it('refuses every token while its issuer cannot be reached (503 issuer_unavailable), and never admits one', async () => {
    const nowhere = `http://localhost:${await freePort()}`;
    const key = signingKey();
    const issuer = new Issuer(issuerConfig(nowhere), { timeoutMs: 2_000 });
    const token = await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['fleet-admins'], iss: nowhere }, key);
    const refused = await refusal(oidcVerifier([issuer])(token));
    expect([refused.status, refused.code]).toEqual([503, 'issuer_unavailable']);
    expect(refused.message).toContain(nowhere);
    // The issuer went away after its keys were fetched: a token naming a key the Hub lacks is refused too.
    const gone = await startOpenIdProvider({ accounts: {}, clients: [] });
    const cached = new Issuer(issuerConfig(gone.issuer), { refetchCooldownMs: 0, timeoutMs: 2_000 });
    await expect(cached.verify(await gone.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] }))).resolves.toMatchObject({ id: 'corp:alice' });
    await gone.stop();
    const unknownKey = await refusal(cached.verify(await gone.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] }, signingKey())));
    expect([unknownKey.status, unknownKey.code]).toEqual([503, 'issuer_unavailable']);
  });

  it('answers a static credential at once, without a promise, beside the issuers; an unknown plain token is null', async () => {
    const controlApi = ConfigFile.parse({
      control_api: { credentials: [{ id: 'ci', role: 'operator', token_sha256: hashToken('ci-token') }], oidc: [issuerConfig(provider.issuer)] },
    }).control_api;
    const authenticate = authenticator(controlApi, issuersFor(controlApi.oidc, []));
    expect(authenticate('ci-token')).toEqual({ id: 'ci', role: 'operator', nodeId: null });
    expect(authenticate('not-a-token')).toBeNull();
    await expect(authenticate(await provider.sign({ sub: 'alice', aud: 'fleetplane', groups: ['staff'] }))).resolves.toMatchObject({ id: 'corp:alice', role: 'viewer' });
  });

  it('keeps an issuer unchanged by a reload, with the keys it fetched, and builds a changed one anew', () => {
    const [kept] = issuersFor([issuerConfig(provider.issuer)], []);
    expect(issuersFor([issuerConfig(provider.issuer)], [kept!])[0]).toBe(kept);
    expect(issuersFor([issuerConfig(provider.issuer, 'other')], [kept!])[0]).not.toBe(kept);
  });
});
