import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';

// Client routes are plain paths (/fleet, /rollouts…), with what a page shows in the query string
// (/history?type=…); the Hub answers index.html for them, so a reload or a shared link opens the same view.
const listeners = new Set<() => void>();

/** Goes to `to` (a path, and a query string if any) as a new history entry: Back returns to where it was. */
export function navigate(to: string): void {
  if (to === location.pathname + location.search) return;
  history.pushState(null, '', to);
  for (const l of listeners) l();
}

/** A part of the location, kept current through navigate() and the browser's back and forward. */
function useLocationPart(part: () => string): string {
  const [value, setValue] = useState(part);
  useEffect(() => {
    const update = () => setValue(part());
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, [part]);
  return value;
}

const pathPart = () => location.pathname;
const searchPart = () => location.search;

export const usePath = (): string => useLocationPart(pathPart);
/** The query string, `?a=b` or empty. */
export const useSearch = (): string => useLocationPart(searchPart);

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
