/**
 * The address is the state: `?view=traffic&source=…&q=…&entry=…&since=…&log=…&webhook=…`, so a link pasted to a
 * teammate opens the same view. The query, not the path: the daemon serves the UI at `/` alone
 * and its API owns every other path. Nothing secret ever goes here (the token is in the fragment
 * only for the moment `session.ts` takes it).
 */
export type View = 'traffic' | 'record' | 'routes' | 'logs' | 'webhooks' | 'alerts';

export interface UrlState {
  readonly view: View;
  readonly source: string | undefined;
  /** The traffic filter (the filter language). */
  readonly q: string;
  readonly entry: string | undefined;
  /** The routes view's window: `1h`, `24h`, `7d`. */
  readonly since: string;
  /** The core log the logs view opens at (a record's linked log, a pasted link). */
  readonly log: string | undefined;
  /** The webhook whose deliveries the webhooks view shows. */
  readonly webhook: string | undefined;
}

const VIEWS: readonly View[] = ['traffic', 'record', 'routes', 'logs', 'webhooks', 'alerts'];
export const WINDOWS = ['15m', '1h', '6h', '24h', '7d'] as const;

const isView = (text: string | null): text is View => VIEWS.some((v) => v === text);

export function parseUrlState(search: string): UrlState {
  const params = new URLSearchParams(search);
  const view = params.get('view');
  const since = params.get('since');
  return {
    view: isView(view) ? view : 'traffic',
    source: params.get('source') || undefined,
    q: params.get('q') ?? '',
    entry: params.get('entry') || undefined,
    since: since && WINDOWS.some((w) => w === since) ? since : '1h',
    log: params.get('log') || undefined,
    webhook: params.get('webhook') || undefined,
  };
}

export function urlOf(state: UrlState): string {
  const params = new URLSearchParams();
  params.set('view', state.view);
  if (state.source) params.set('source', state.source);
  if (state.q) params.set('q', state.q);
  if (state.entry) params.set('entry', state.entry);
  if (state.since !== '1h') params.set('since', state.since);
  if (state.log) params.set('log', state.log);
  if (state.webhook) params.set('webhook', state.webhook);
  return `/?${params.toString()}`;
}
