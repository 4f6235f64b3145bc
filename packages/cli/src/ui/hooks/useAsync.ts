import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from '../api.js';

export interface AsyncState<T> {
  readonly data: T | undefined;
  /** One line, never a stack. */
  readonly error: string | null;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Runs `load` when `deps` change (and on `reload`), ignoring answers that arrive after a newer run. */
export function useAsync<T>(load: () => Promise<T>, deps: DependencyList): AsyncState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const id = ++run.current;
    setLoading(true);
    load()
      .then((value) => {
        if (id !== run.current) return;
        setData(value);
        setError(null);
      })
      .catch((e: unknown) => {
        if (id === run.current) setError(describeError(e));
      })
      .finally(() => {
        if (id === run.current) setLoading(false);
      });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what `load` depends on
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload };
}
