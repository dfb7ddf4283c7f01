import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'done'; value: T } | { state: 'failed'; message: string };

/** Runs a load when its inputs change; a later load's answer replaces an earlier one's, never the reverse. */
export function useLoad<T>(load: () => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    load().then(
      (value) => current && setLoaded({ state: 'done', value }),
      (error: unknown) =>
        current &&
        setLoaded({ state: 'failed', message: error instanceof ApiFailure ? error.message : 'The page could not read the answer.' }),
    );
    return () => {
      current = false;
    };
  }, inputs);
  return loaded;
}
