import type { Role } from '@fleetplane/core';
import { hashToken, type Credential } from '../config.ts';

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

/** `Authorization: Bearer <token>` → the token, or null when the header is absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m ? m[1]! : null;
}
