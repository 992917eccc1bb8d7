import { useState } from 'react';
import { ApprovalsPage } from './pages/approvals.tsx';
import { FleetPage } from './pages/fleet.tsx';
import { HistoryPage } from './pages/history.tsx';
import { RolloutsPage } from './pages/rollouts.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { StreamsPage } from './pages/streams.tsx';
import { Link, usePath } from './router.tsx';
import { clearSession, loadSession, type Session } from './session.ts';

const PAGES = [
  { path: '/fleet', title: 'Fleet', Page: FleetPage },
  { path: '/rollouts', title: 'Rollouts', Page: RolloutsPage },
  { path: '/approvals', title: 'Approvals', Page: ApprovalsPage },
  { path: '/streams', title: 'Streams', Page: StreamsPage },
  { path: '/history', title: 'History', Page: HistoryPage },
] as const;

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const path = usePath();
  if (session === null) return <SignInPage onSignedIn={setSession} />;
  const page = PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`)) ?? PAGES[0];
  const signOut = () => {
    clearSession();
    setSession(null);
  };
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Fleetplane</span>
        <nav aria-label="Console pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <Link to={p.path} current={p === page}>
                  {p.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who" data-testid="who">
          Signed in as <strong>{session.id}</strong> ({session.role})
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <page.Page session={session} />
      </main>
    </>
  );
}
