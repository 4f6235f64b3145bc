import { createRoot } from 'react-dom/client';
import { App, checkStart, type Phase } from './components/App.js';

/**
 * How long the page waits for the token check (and the first page beside it) before it shows
 * "Signing in…": on loopback both have come by then, and the page is drawn once, signed in with
 * its rows, rather than three times (docs/decisions.md §24.13).
 */
export const QUIET_START_MS = 300;

/** The page itself, loaded by main.tsx once the first requests are on their way. */
export function render(root: HTMLElement): void {
  const reactRoot = createRoot(root);
  const check = checkStart();
  let shown = false;
  const show = (initial: Phase) => {
    if (shown) return;
    shown = true;
    clearTimeout(timer);
    reactRoot.render(<App check={check} initial={initial} />);
  };
  const timer = setTimeout(() => show({ kind: 'checking' }), QUIET_START_MS);
  void check.then(show);
}
