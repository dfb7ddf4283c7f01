import { useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'done'; value: T } | { state: 'failed'; message: string };

const LOADING = { state: 'loading' } as const;

/**
 * Runs a load when its inputs change; a later load's answer replaces an earlier one's, never the reverse.
 * What was loaded is kept with the inputs it was loaded for: the render that follows a change of inputs comes
 * before the effect that starts the new load, and must not show the old answer under the new inputs (a search
 * for one term showing another term's matches for a frame).
 */
export function useLoad<T>(load: () => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [loaded, setLoaded] = useState<{ inputs: unknown[]; result: Loaded<T> }>({ inputs, result: LOADING });
  useEffect(() => {
    let current = true;
    setLoaded({ inputs, result: LOADING });
    load().then(
      (value) => current && setLoaded({ inputs, result: { state: 'done', value } }),
      (error: unknown) =>
        current &&
        setLoaded({
          inputs,
          result: { state: 'failed', message: error instanceof ApiFailure ? error.message : 'The page could not read the answer.' },
        }),
    );
    return () => {
      current = false;
    };
  }, inputs);
  const forTheseInputs = loaded.inputs.length === inputs.length && loaded.inputs.every((input, i) => Object.is(input, inputs[i]));
  return forTheseInputs ? loaded.result : LOADING;
}
