// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react';
import { lazy, Suspense } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { ViewBoundary } from './ViewBoundary.js';

afterEach(cleanup);

it('shows a view whose chunk cannot be loaded as a message with a reload, and the next view again', async () => {
  // React reports a caught error on the console as well; the page shows it.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const Gone = lazy(() =>
    Promise.reject(new Error('Failed to fetch dynamically imported module: /assets/RoutesView-1a2b.js')),
  );
  const page = (key: string, view: React.ReactNode) => (
    <div>
      <header>Tapline</header>
      <ViewBoundary resetKey={key}>
        <Suspense fallback={<p role="status">Loading…</p>}>{view}</Suspense>
      </ViewBoundary>
    </div>
  );
  const { rerender } = render(page('routes', <Gone />));
  const alert = await screen.findByRole('alert');
  expect(alert.textContent).toContain('This view could not be loaded (Failed to fetch dynamically imported module');
  expect(screen.getByRole('button', { name: 'Reload the page' })).toBeTruthy();
  expect(screen.getByText('Tapline')).toBeTruthy();

  rerender(page('routes', <Gone />));
  expect(screen.getByRole('alert')).toBeTruthy();
  rerender(page('traffic', <p>the traffic list</p>));
  expect(screen.queryByRole('alert')).toBeNull();
  expect(screen.getByText('the traffic list')).toBeTruthy();
});
