import { useCallback, useEffect, useRef, useState } from 'react';
import { onFleetChange } from './live.ts';

export interface Resource<T> {
  data: T | null;
  error: unknown;
  reload(): void;
}

/** Loads `load()` now and again on every fleet change, keeping the last good data while a reload runs. */
export function useResource<T>(token: string, load: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const mounted = useRef(true);
  const reload = useCallback(() => {
    loadRef.current().then(
      (value) => {
        if (!mounted.current) return;
        setData(value);
        setError(null);
      },
      (e: unknown) => {
        if (mounted.current) setError(e);
      },
    );
  }, []);
  useEffect(() => {
    mounted.current = true;
    reload();
    const stop = onFleetChange(token, reload);
    return () => {
      mounted.current = false;
      stop();
    };
  }, [token, reload]);
  return { data, error, reload };
}
