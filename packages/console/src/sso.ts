import { api } from './api.ts';
import type { Role, Session } from './session.ts';

/** An OpenID Connect issuer the Hub trusts (GET /api/v1/auth/providers). */
export interface Provider {
  name: string;
  client_id: string;
  scopes: string[];
  authorization_endpoint: string | null;
  unavailable: string | null;
}

/** Where the issuer sends the browser back: register `<console origin>/sign-in/callback` as the client's redirect URI. */
export const CALLBACK_PATH = '/sign-in/callback';

// What the sign-in started in this tab must find when the issuer sends it back: the PKCE verifier never leaves the tab.
const KEY = 'fleetplane.sso';
interface Pending {
  provider: string;
  verifier: string;
  state: string;
  nonce: string;
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
const redirectUri = () => `${location.origin}${CALLBACK_PATH}`;

export async function loadProviders(): Promise<Provider[]> {
  return (await api<{ providers: Provider[] }>('', 'GET', '/api/v1/auth/providers')).providers;
}

/** Sends the browser to the issuer's sign-in page: authorization code with PKCE (S256), as a public client. */
export async function startSignIn(provider: Provider): Promise<void> {
  const pending: Pending = { provider: provider.name, verifier: random(), state: random(), nonce: random() };
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
  sessionStorage.setItem(KEY, JSON.stringify(pending));
  const url = new URL(provider.authorization_endpoint!);
  const params = {
    response_type: 'code',
    client_id: provider.client_id,
    redirect_uri: redirectUri(),
    scope: provider.scopes.join(' '),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  location.assign(url.toString());
}

/** Whether this page is the issuer sending the browser back. */
export const isCallback = () => location.pathname === CALLBACK_PATH;

/**
 * Completes a sign-in the issuer sent back: checks its state, has the Hub exchange the code (and verify the ID
 * token), checks the nonce, and answers the session. The code leaves the address bar whatever the outcome.
 */
export async function finishSignIn(): Promise<Session> {
  const params = new URLSearchParams(location.search);
  history.replaceState(null, '', '/');
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  const error = params.get('error');
  if (error) throw new Error(`The issuer refused the sign-in: ${params.get('error_description') ?? error}.`);
  if (pending === null || params.get('state') !== pending.state) throw new Error('This sign-in was not started in this tab: start it again.');
  const answer = await api<{ id_token: string; id: string; role: Role }>('', 'POST', '/api/v1/auth/token', {
    provider: pending.provider,
    code: params.get('code') ?? '',
    code_verifier: pending.verifier,
    redirect_uri: redirectUri(),
  });
  const claims = JSON.parse(atob(answer.id_token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { nonce?: string };
  if (claims.nonce !== pending.nonce) throw new Error('The ID token was not issued for this sign-in: start it again.');
  return { token: answer.id_token, id: answer.id, role: answer.role };
}
