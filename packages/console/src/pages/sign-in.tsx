import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, describeError } from '../api.ts';
import { saveSession, type Role, type Session } from '../session.ts';
import { finishSignIn, isCallback, loadProviders, startSignIn, type Provider } from '../sso.ts';

/**
 * Asks for a bearer token, or signs in with an issuer the Hub trusts (single sign-on); learns the identity
 * and role from the Hub, and keeps the token for this tab only.
 */
export function SignInPage({ onSignedIn }: { onSignedIn(session: Session): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(isCallback);
  const [providers, setProviders] = useState<Provider[]>([]);
  useEffect(() => {
    loadProviders().then(setProviders, (err: unknown) => setError(describeError(err)));
    if (!isCallback()) return;
    finishSignIn()
      .then((session) => {
        saveSession(session);
        onSignedIn(session);
      })
      .catch((err: unknown) => setError(`Single sign-on failed: ${describeError(err)}`))
      .finally(() => setBusy(false));
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const me = await api<{ id: string; role: Role }>(token.trim(), 'GET', '/api/v1/whoami');
      const session = { token: token.trim(), id: me.id, role: me.role };
      saveSession(session);
      onSignedIn(session);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthenticated') setError('The Hub does not know this token.');
      else if (err instanceof ApiError && err.status === 403) setError("This token is an agent's: sign in with an operator, admin or viewer token.");
      else setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="sign-in">
      <h1>Sign in to Fleetplane</h1>
      <form onSubmit={submit} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="token">Bearer token</label>
        <input
          id="token"
          type="password"
          autoFocus
          autoComplete="current-password"
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <p className="hint">Kept in this tab's session storage only, and sent as an Authorization header.</p>
        {error && (
          <p id="sign-in-error" role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
      </form>
      {providers.length > 0 && (
        <section className="sso" aria-label="Single sign-on">
          {providers.map((p) => (
            <p key={p.name}>
              <button type="button" disabled={busy || p.authorization_endpoint === null} onClick={() => void startSignIn(p).catch((err: unknown) => setError(describeError(err)))}>
                Sign in with SSO ({p.name})
              </button>
              {p.unavailable && <span className="hint"> {p.unavailable}</span>}
            </p>
          ))}
        </section>
      )}
    </main>
  );
}
