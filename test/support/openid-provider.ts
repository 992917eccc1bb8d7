import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT, importJWK, type JWK, type JWTPayload } from 'jose';
import { freePort } from './ports.ts';
import { startProcess, type RunningProcess } from './process.ts';

/** An RS256 signing key (private JWK) with a key id of its own. */
export function signingKey(): JWK {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

export interface OpenIdProviderSetup {
  /** Login → groups; any password signs in. */
  accounts: Record<string, string[]>;
  clients: { client_id: string; redirect_uris: string[] }[];
  /** Served over HTTPS as `https://<host>:<port>` with this certificate and key (files), instead of `http://localhost:<port>`. */
  tls?: { host: string; cert: string; key: string };
}

export interface OpenIdProvider {
  issuer: string;
  /** The keys it signs with and publishes (its JWKS), the first one signing. */
  keys: JWK[];
  /** Restarts it on the same port publishing `keys` instead: a key rotation. */
  rotate(keys: JWK[]): Promise<void>;
  /**
   * A token as the provider signs one: an ID token for `sub` with claims (`iss`, `aud`, `exp`…) overridden by
   * `claims`, signed with its first key unless `key` is given.
   */
  sign(claims: JWTPayload & { aud: string }, key?: JWK): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider) on a free port, in a process of its own
 * (openid-provider-main.ts), with its discovery document, JWKS, login page and token endpoint.
 */
export async function startOpenIdProvider(setup: OpenIdProviderSetup, keys: JWK[] = [signingKey()]): Promise<OpenIdProvider> {
  const port = await freePort();
  const issuer = setup.tls ? `https://${setup.tls.host}:${port}` : `http://localhost:${port}`;
  const start = (published: JWK[]): Promise<RunningProcess> =>
    startProcess(join(__dirname, 'openid-provider-main.ts'), [], { ...process.env, OPENID_PROVIDER_SETUP: JSON.stringify({ port, issuer, keys: published, ...setup }) }, /OpenID provider ready on/);
  let running = await start(keys);
  const provider: OpenIdProvider = {
    issuer,
    keys,
    async rotate(next) {
      await running.stop('SIGTERM');
      running = await start(next);
      provider.keys = next;
    },
    async sign(claims, key = provider.keys[0]!) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid! })
        .sign(await importJWK(key, 'RS256'));
    },
    async stop() {
      await running.stop('SIGTERM');
    },
  };
  return provider;
}
