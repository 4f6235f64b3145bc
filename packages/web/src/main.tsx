import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { startEarly } from './early.js';

// The token check and the first page leave before React and the contract are loaded and run: the
// daemon answers them meanwhile (docs/decisions.md §24.10).
startEarly();
const root = document.getElementById('root');
if (root)
  import('./render.js').then(
    (page) => page.render(root),
    () => {
      // A daemon updated since this page was loaded no longer has its chunks: say so, never a blank page.
      root.textContent = "Tapline's web UI could not be loaded. Reload the page.";
    },
  );
