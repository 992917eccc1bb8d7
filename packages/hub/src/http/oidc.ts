import { hasRole, type OperatorRole } from '@fleetplane/core';
import { createRemoteJWKSet, customFetch, decodeJwt, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Dispatcher } from 'undici';
import type { OidcIssuer } from '../config.ts';
import { HttpError } from './errors.ts';
import type { Principal } from './principal.ts';

/** What the Hub reads of an issuer's discovery document (`/.well-known/openid-configuration`). */
export interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

export interface OidcOptions {
  /** How long after fetching an issuer's keys a token with an unknown key id waits for the next fetch. */
  refetchCooldownMs?: number;
  /** How long the Hub waits for an issuer's discovery document, keys or token endpoint. */
  timeoutMs?: number;
  /**
   * The time a token's `exp` and `nbf` are judged at: the Hub's clock, the database's, so that every Hub
   * takes or refuses a token alike whatever its host's clock (docs/decisions.md, "One clock for every Hub").
   */
  now?: () => Date;
  /** The connections the issuer is reached by (the Hub's: through its egress proxy, egress.ts); default direct. */
  dispatcher?: Dispatcher;
}

/**
 * One trusted issuer: its discovery document, fetched on first need and kept (fetched again after a failure),
 * and its keys (JWKS), kept and fetched again when a token names a key they lack: the issuer rotated them.
 */
export class Issuer {
  readonly config: OidcIssuer;
  readonly #timeoutMs: number;
  readonly #refetchCooldownMs: number;
  readonly #now: () => Date;
  readonly #dispatcher: Dispatcher | undefined;
  #discovery: Promise<Discovery> | null = null;
  #keys: ReturnType<typeof createRemoteJWKSet> | null = null;

  constructor(config: OidcIssuer, options: OidcOptions = {}) {
    this.config = config;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#refetchCooldownMs = options.refetchCooldownMs ?? 30_000;
    this.#now = options.now ?? (() => new Date());
    this.#dispatcher = options.dispatcher;
  }

  get clientId(): string {
    return this.config.client_id ?? this.config.audience;
  }

  /** The issuer's endpoints; 503 issuer_unavailable while its discovery document cannot be had. */
  discovery(): Promise<Discovery> {
    this.#discovery ??= this.#discover().catch((error: unknown) => {
      this.#discovery = null;
      throw error;
    });
    return this.#discovery;
  }

  async #discover(): Promise<Discovery> {
    const url = `${this.config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const doc = (await this.#fetchJson(url)) as Partial<Discovery> & { issuer?: unknown };
    // OpenID Connect Discovery 1.0, 4.3: a document naming another issuer is not this issuer's.
    if (doc.issuer !== this.config.issuer) throw this.#unavailable(`its discovery document names issuer ${String(doc.issuer)}`);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof doc[key] !== 'string') throw this.#unavailable(`its discovery document has no ${key}`);
    }
    return doc as Discovery;
  }

  /** The principal of an ID token this issuer signed for the configured audience, or a 401/403/503 HttpError. */
  async verify(token: string): Promise<Principal> {
    const { jwks_uri } = await this.discovery();
    this.#keys ??= createRemoteJWKSet(new URL(jwks_uri), {
      timeoutDuration: this.#timeoutMs,
      cooldownDuration: this.#refetchCooldownMs,
      [customFetch]: (url, init) => this.#fetch(url, init),
    });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, { issuer: this.config.issuer, audience: this.config.audience, requiredClaims: ['sub', 'exp'], currentDate: this.#now() }));
    } catch (error) {
      throw this.#refusal(error);
    }
    const groups = [payload[this.config.groups_claim]].flat().filter((g): g is string => typeof g === 'string');
    const role = highest(groups.flatMap((g) => this.config.roles[g] ?? []));
    const id = `${this.config.name}:${payload.sub}`;
    if (role === null) {
      throw new HttpError(403, 'no_role', `${id} is signed in, but none of its groups (${groups.join(', ') || 'none'}) is given a role by issuer ${this.config.name}`, {
        principal: id,
        groups,
      });
    }
    return { id, role, nodeId: null };
  }

  /** Exchanges an authorization code (PKCE, public client) at the token endpoint: the ID token, verified. */
  async exchange(code: string, codeVerifier: string, redirectUri: string): Promise<{ idToken: string; principal: Principal }> {
    const { token_endpoint } = await this.discovery();
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: codeVerifier, redirect_uri: redirectUri, client_id: this.clientId });
    let res: Response;
    try {
      res = await this.#fetch(token_endpoint, { method: 'POST', body: form, signal: AbortSignal.timeout(this.#timeoutMs), headers: { accept: 'application/json' } });
    } catch (error) {
      throw this.#unavailable((error as Error).message);
    }
    const body = (await res.json().catch(() => ({}))) as { id_token?: unknown; error?: unknown; error_description?: unknown };
    if (!res.ok || typeof body.id_token !== 'string') {
      // The provider's own error (invalid_grant: a used or expired code, a wrong verifier), never the code itself.
      const reason = typeof body.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${res.status}`;
      throw new HttpError(401, 'sso_failed', `issuer ${this.config.name} refused the sign-in (${reason})`, { issuer: this.config.issuer });
    }
    return { idToken: body.id_token, principal: await this.verify(body.id_token) };
  }

  async #fetchJson(url: string): Promise<unknown> {
    let res: Response;
    try {
      res = await this.#fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs), headers: { accept: 'application/json' } });
    } catch (error) {
      throw this.#unavailable((error as Error).message);
    }
    if (!res.ok) throw this.#unavailable(`${url} answered HTTP ${res.status}`);
    return res.json().catch(() => {
      throw this.#unavailable(`${url} is not JSON`);
    });
  }

  #fetch(url: string, init: RequestInit): Promise<Response> {
    return fetch(url, this.#dispatcher ? { ...init, dispatcher: this.#dispatcher } : init);
  }

  #unavailable(reason: string): HttpError {
    return new HttpError(503, 'issuer_unavailable', `issuer ${this.config.name} (${this.config.issuer}) cannot be reached: ${reason}; retry later`, {
      issuer: this.config.issuer,
    });
  }

  #refusal(error: unknown): HttpError {
    const details = { issuer: this.config.issuer };
    if (error instanceof errors.JWTExpired) return new HttpError(401, 'token_expired', `the token of issuer ${this.config.name} has expired: sign in again`, details);
    if (error instanceof errors.JWTClaimValidationFailed) {
      return new HttpError(401, 'token_invalid', `the token's ${error.claim} claim is refused (${error.reason}): this Hub takes tokens for audience ${this.config.audience}`, {
        ...details,
        claim: error.claim,
      });
    }
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWSSignatureVerificationFailed) {
      return new HttpError(401, 'token_invalid', `the token is not signed by a key of issuer ${this.config.name}`, details);
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported || error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
      return new HttpError(401, 'token_invalid', `the token cannot be verified: ${error.message}`, details);
    }
    // The keys could not be fetched (a timeout, a refused connection, a document that is no key set).
    return this.#unavailable(error instanceof Error ? error.message : String(error));
  }
}

function highest(roles: OperatorRole[]): OperatorRole | null {
  return roles.reduce<OperatorRole | null>((best, r) => (best === null || hasRole(r, best) ? r : best), null);
}

/**
 * The principal of a JWT from one of `issuers` (a promise, which rejects with the refusal), or null for a
 * token that is no JWT: the caller's other credentials had their turn. A JWT of an issuer not listed is refused.
 */
export function oidcVerifier(issuers: readonly Issuer[]): (token: string) => Promise<Principal> | null {
  const byIssuer = new Map(issuers.map((i) => [i.config.issuer, i]));
  return (token) => {
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return null;
    }
    const issuer = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
    if (issuer === undefined) return Promise.reject(new HttpError(401, 'unknown_issuer', `the token's issuer ${String(iss)} is not one this Hub trusts`, { issuer: iss ?? null }));
    return issuer.verify(token);
  };
}

/** The issuers of a configuration; one unchanged since `running` is kept with the discovery and keys it fetched. */
export function issuersFor(configs: readonly OidcIssuer[], running: readonly Issuer[], options: OidcOptions = {}): Issuer[] {
  const same = new Map(running.map((i) => [JSON.stringify(i.config), i]));
  return configs.map((c) => same.get(JSON.stringify(c)) ?? new Issuer(c, options));
}
