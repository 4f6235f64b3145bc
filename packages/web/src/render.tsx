import { createRoot } from 'react-dom/client';
import { App } from './components/App.js';

/** The page itself, loaded by main.tsx once the first requests are on their way. */
export function render(root: HTMLElement): void {
  createRoot(root).render(<App />);
}
