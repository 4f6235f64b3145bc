import { createRoot } from 'react-dom/client';
import { App, checkStart, type Phase, QUIET_START_MS } from './components/App.js';

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
