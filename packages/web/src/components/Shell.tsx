import { contract, type TrafficSource } from '@tapline/shared/browser';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { authFailure, describeError } from '../errors.js';
import { useUrlState } from '../hooks/useUrlState.js';
import { type Session, signOut } from '../session.js';
import type { View } from '../url-state.js';
import { AlertsBanner } from './AlertsBanner.js';
import { TrafficView } from './TrafficView.js';
import { ViewBoundary } from './ViewBoundary.js';

// Every view but the traffic list, the first one, is a chunk of its own, loaded when first shown:
// the first view runs none of their code (uPlot is the routes view's), docs/decisions.md §24.10.
const AddSource = lazy(() => import('./AddSource.js').then((m) => ({ default: m.AddSource })));
const AlertsView = lazy(() => import('./AlertsView.js').then((m) => ({ default: m.AlertsView })));
const LogsView = lazy(() => import('./LogsView.js').then((m) => ({ default: m.LogsView })));
const RecordView = lazy(() => import('./RecordView.js').then((m) => ({ default: m.RecordView })));
const RoutesView = lazy(() => import('./RoutesView.js').then((m) => ({ default: m.RoutesView })));
const WebhooksView = lazy(() => import('./WebhooksView.js').then((m) => ({ default: m.WebhooksView })));

const loading = <p role="status">Loading…</p>;

export interface ShellProps {
  readonly session: Session;
  readonly onSignedOut: (reason?: string) => void;
}

const VIEW_KEYS: Readonly<Record<string, Exclude<View, 'record'>>> = {
  r: 'routes',
  l: 'logs',
  w: 'webhooks',
  a: 'alerts',
};

/** Header (source, views, sign out) and the view the address names. */
export function Shell({ session, onSignedOut }: ShellProps) {
  const [state, update] = useUrlState();
  const [sources, setSources] = useState<readonly TrafficSource[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [adding, setAdding] = useState(false);

  /** Every view reports failures here: a refused token signs out, anything else is shown. */
  const onError = useCallback(
    (failure: unknown) => {
      const reason = authFailure(failure);
      if (reason) onSignedOut(reason);
      else setError(describeError(failure));
    },
    [onSignedOut],
  );

  const loadSources = useCallback(
    () =>
      session.client
        .call(contract.listTrafficSources, { query: { limit: 1000 } })
        .then((page) => setSources(page.data), onError),
    [session, onError],
  );
  useEffect(() => {
    void loadSources();
  }, [loadSources]);
  const onSourceAdded = (added: TrafficSource) => {
    setAdding(false);
    void loadSources().then(() =>
      update({ source: added.id, view: 'traffic', entry: undefined, q: '', log: undefined, webhook: undefined }),
    );
  };

  const source = state.source ?? sources?.[0]?.id;
  useEffect(() => {
    if (!state.source && source) update({ source }, true);
  }, [state.source, source, update]);

  const go = useCallback(
    (view: Exclude<View, 'record'>) => update({ view, entry: undefined, log: undefined, webhook: undefined }),
    [update],
  );
  useEffect(() => {
    // The terminal UI's keys from its live table (docs/ui.md): r routes, l core logs, w webhooks, a alerts.
    const onKey = (event: KeyboardEvent) => {
      const target = event.target;
      if (
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        target instanceof HTMLInputElement ||
        target instanceof HTMLTextAreaElement ||
        target instanceof HTMLSelectElement
      )
        return;
      const view = VIEW_KEYS[event.key];
      if (view) go(view);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);

  const nav = (view: Exclude<View, 'record'>, label: string) => (
    <button type="button" aria-current={state.view === view ? 'page' : undefined} onClick={() => go(view)}>
      {label}
    </button>
  );

  return (
    <div className="shell">
      <header className="top">
        <strong className="brand">Tapline</strong>
        <nav aria-label="Views">
          {nav('traffic', 'Traffic')}
          {nav('routes', 'Routes')}
          {nav('logs', 'Core logs')}
          {nav('webhooks', 'Webhooks')}
          {nav('alerts', 'Alerts')}
        </nav>
        <label className="source-picker">
          Source
          <select
            value={source ?? ''}
            onChange={(e) =>
              update({ source: e.target.value, entry: undefined, q: '', log: undefined, webhook: undefined })
            }
          >
            {sources?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" aria-expanded={adding} onClick={() => setAdding(!adding)}>
          Add source
        </button>
        <span className="who">{session.me.email}</span>
        <button type="button" onClick={() => void signOut(session).then(() => onSignedOut('You signed out.'))}>
          Sign out
        </button>
      </header>
      {error && (
        <p className="error banner" role="alert">
          {error}{' '}
          <button type="button" className="link" onClick={() => setError(undefined)}>
            Dismiss
          </button>
        </p>
      )}
      {adding && (
        <ViewBoundary resetKey="add-source">
          <Suspense fallback={loading}>
            <AddSource client={session.client} onAdded={onSourceAdded} onCancel={() => setAdding(false)} />
          </Suspense>
        </ViewBoundary>
      )}
      {source && <AlertsBanner key={source} client={session.client} sourceId={source} onError={onError} />}
      <main>
        <ViewBoundary resetKey={`${source ?? ''} ${state.view} ${state.entry ?? ''}`}>
          <Suspense fallback={loading}>
            {/* A source in the address needs no list to open its view: the list only fills the picker. */}
            {sources === undefined && !state.source ? (
              <p role="status">Loading sources…</p>
            ) : !source ? (
              <p>
                No traffic source yet. Add one with <strong>Add source</strong> above, or{' '}
                <code>tapline sources add</code>.
              </p>
            ) : state.view === 'record' && state.entry ? (
              <RecordView
                key={state.entry}
                client={session.client}
                sourceId={source}
                entryId={state.entry}
                onError={onError}
                onBack={() => update({ view: 'traffic', entry: undefined })}
                onOpenLog={(log) => update({ view: 'logs', entry: undefined, log })}
              />
            ) : state.view === 'logs' ? (
              <LogsView
                key={source}
                client={session.client}
                sourceId={source}
                logId={state.log}
                onOpenLog={(log) => update({ log }, true)}
                onOpenEntry={(entry) => update({ view: 'record', entry, log: undefined })}
                onError={onError}
              />
            ) : state.view === 'webhooks' ? (
              <WebhooksView
                key={source}
                client={session.client}
                sourceId={source}
                webhookId={state.webhook}
                onShowDeliveries={(webhook) => update({ webhook }, true)}
                onError={onError}
              />
            ) : state.view === 'alerts' ? (
              <AlertsView key={source} client={session.client} sourceId={source} onError={onError} />
            ) : state.view === 'routes' ? (
              <RoutesView
                client={session.client}
                sourceId={source}
                since={state.since}
                onSince={(since) => update({ since })}
                onOpenRoute={(route) => update({ view: 'traffic', q: `route=${JSON.stringify(route)}` })}
                onError={onError}
              />
            ) : (
              <TrafficView
                key={`${source} ${state.q}`}
                client={session.client}
                sourceId={source}
                q={state.q}
                onQuery={(q) => update({ q }, true)}
                onOpen={(entry) => update({ view: 'record', entry })}
                onError={onError}
              />
            )}
          </Suspense>
        </ViewBoundary>
      </main>
    </div>
  );
}
