import { createRoot } from 'react-dom/client';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './components/App.js';

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
