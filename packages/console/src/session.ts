/** An operator role, as the Hub's credentials name them. */
export type Role = 'viewer' | 'operator' | 'admin';

/** Who is signed in, and the bearer token the console sends for them. */
export interface Session {
  token: string;
  id: string;
  role: Role;
}

// sessionStorage, not localStorage: the token is gone when the tab closes and is never shared between tabs.
// It is never put in a URL, where it would reach history, logs and Referer headers.
const KEY = 'fleetplane.session';

export function loadSession(): Session | null {
  const raw = sessionStorage.getItem(KEY);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    sessionStorage.removeItem(KEY);
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}
