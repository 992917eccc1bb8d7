import { useEffect, useMemo, useRef, useState } from 'react';
import { onFleetChange } from './live.ts';
import { singleFlight } from './single-flight.ts';

export interface Resource<T> {
  data: T | null;
  error: unknown;
  reload(): void;
}

/**
 * Loads `load()` now, again on every fleet change (one load at a time; live.ts spaces the changes) and whenever
 * `key` (what the load reads: a page, its filters) changes, keeping the last good data while a reload runs.
 * `spacedMs` spaces the reloads further, for a load that costs the Hub more than its data changes.
 */
export function useResource<T>(token: string, load: () => Promise<T>, key = '', spacedMs = 0): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const mounted = useRef(true);
  // One load at a time: changes that come while it runs ask for one more after it.
  const reload = useMemo(
    () =>
      singleFlight(() =>
        loadRef.current().then(
          (value) => {
            if (!mounted.current) return;
            setData(value);
            setError(null);
          },
          (e: unknown) => {
            if (mounted.current) setError(e);
          },
        ),
      ),
    [],
  );
  useEffect(() => {
    mounted.current = true;
    const stop = onFleetChange(token, reload, spacedMs);
    return () => {
      mounted.current = false;
      stop();
    };
  }, [token, reload, spacedMs]);
  useEffect(reload, [token, reload, key]);
  return { data, error, reload };
}
