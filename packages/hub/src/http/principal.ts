import type { Role } from '@fleetplane/core';
import { hashToken, type ConfigFile, type Credential } from '../config.ts';
import { oidcVerifier, type Issuer } from './oidc.ts';

/** The authenticated caller: an operator identity with a role, or an agent bound to one node. */
export interface Principal {
  id: string;
  role: Role;
  nodeId: string | null;
}

/** Looks tokens up by their SHA-256: the Hub never holds a credential's plain token. */
export function credentialStore(credentials: readonly Credential[]): (token: string) => Principal | null {
  const byHash = new Map(
    credentials.map((c) => [c.token_sha256, { id: c.id, role: c.role, nodeId: c.role === 'agent' ? c.node_id : null }]),
  );
  return (token) => byHash.get(hashToken(token)) ?? null;
}

/**
 * A bearer token's principal: synchronously for a static credential (every report of every agent comes this
 * way, and pays no more than a hash), a promise for an issuer's ID token, null for a token no one knows.
 * A promise rejects with the refusal (expired, wrong audience, issuer unreachable).
 */
export type Authenticate = (token: string) => Principal | null | Promise<Principal>;

/** The running configuration's login check: static credentials first, then the issuers (built from `control_api.oidc`). */
export function authenticator(controlApi: ConfigFile['control_api'], issuers: readonly Issuer[]): Authenticate {
  const known = credentialStore(controlApi.credentials);
  if (issuers.length === 0) return known;
  const verify = oidcVerifier(issuers);
  return (token) => known(token) ?? verify(token);
}

/** `Authorization: Bearer <token>` → the token, or null when the header is absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1]! : null;
}
