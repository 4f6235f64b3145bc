import { useCallback, useEffect, useState } from 'react';
import { parseUrlState, type UrlState, urlOf } from '../url-state.js';

/** The URL state, and a setter that pushes a history entry (so Back works) or replaces it. */
export function useUrlState(): [UrlState, (change: Partial<UrlState>, replace?: boolean) => void] {
  const [state, setState] = useState(() => parseUrlState(window.location.search));
  useEffect(() => {
    const onPop = () => setState(parseUrlState(window.location.search));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const update = useCallback((change: Partial<UrlState>, replace = false) => {
    setState((current) => {
      const next = { ...current, ...change };
      const url = urlOf(next);
      if (replace) window.history.replaceState(null, '', url);
      else window.history.pushState(null, '', url);
      return next;
    });
  }, []);
  return [state, update];
}
