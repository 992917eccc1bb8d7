import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';

// Client routes are plain paths (/fleet, /rollouts…); the Hub answers index.html for them, so a reload or a
// shared link opens the same page.
const listeners = new Set<() => void>();

export function navigate(to: string): void {
  if (to === location.pathname) return;
  history.pushState(null, '', to);
  for (const l of listeners) l();
}

export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A real link (opens in a new tab, keyboard-focusable) that switches pages without a reload. */
export function Link({ to, children, current }: { to: string; children: ReactNode; current?: boolean }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={onClick} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

/**
 * Once a page's data is in (`ready`), scrolls to the element the URL's fragment names (`/streams#stream-x`,
 * a link from a rollout target to what blocks it) and focuses it, as a browser does on a full page load.
 */
export function useScrollToHash(ready: boolean): void {
  useEffect(() => {
    if (!ready || !location.hash) return;
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.scrollIntoView({ block: 'center' });
    target.focus({ preventScroll: true });
  }, [ready]);
}
