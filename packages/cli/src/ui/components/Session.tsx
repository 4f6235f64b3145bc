import { type FilterExpr, type HttpTraffic, printFilter, type StatsGroup, type TrafficSource } from '@tapline/shared';
import { Box } from 'ink';
import { useCallback, useEffect, useState } from 'react';
import { firingOf } from '../../commands/alerts.js';
import type { UiApi } from '../api.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import type { TerminalSize } from '../hooks/useTerminalSize.js';
import { type FeedOptions, type TrafficFeed, useTrafficStream } from '../hooks/useTrafficStream.js';
import type { Screen } from '../keys.js';
import { pause } from '../table-state.js';
import { AlertsView } from './AlertsView.js';
import { CoreLogsView } from './CoreLogsView.js';
import { DiffView } from './DiffView.js';
import { FilterPrompt } from './FilterPrompt.js';
import { Footer } from './Footer.js';
import { HeaderBar } from './HeaderBar.js';
import { HelpView } from './HelpView.js';
import { RecordView } from './RecordView.js';
import { RoutesView } from './RoutesView.js';
import { StatusLine, type Tone } from './StatusLine.js';
import { TrafficView } from './TrafficView.js';
import { WebhooksView } from './WebhooksView.js';

export interface SessionProps {
  readonly api: UiApi;
  readonly source: TrafficSource;
  readonly size: TerminalSize;
  readonly initialFilter?: string;
  readonly recentFilters?: readonly string[];
  readonly onRecentFilters?: (recent: readonly string[]) => void;
  readonly feedOptions?: FeedOptions;
  /** How often the alert rules are asked for again, for the header's count. */
  readonly alertsMs?: number;
  readonly onQuit: () => void;
}

type Body = 'traffic' | 'record' | 'diff' | 'logs' | 'webhooks' | 'routes' | 'alerts' | 'help';
const RECENT_MAX = 20;
/** Rules are evaluated every 30 s by default (`--alert-interval`); asking every 5 s shows a change soon after. */
const ALERTS_MS = 5000;
const NOTICE_MS = 5000;

/** The filter that shows a routes-view row's entries: its route, and its method when the row has one. */
export function routeFilter(group: Pick<StatsGroup, 'route' | 'method'>): string {
  const parts: FilterExpr[] = [];
  if (group.route !== undefined) parts.push({ type: 'compare', field: 'route', op: '=', value: group.route });
  if (group.method !== undefined) parts.push({ type: 'compare', field: 'method', op: '=', value: group.method });
  return parts.length === 1 && parts[0] ? printFilter(parts[0]) : printFilter({ type: 'and', operands: parts });
}

/** What the status line says when nothing more urgent does. */
function feedLine(feed: TrafficFeed, q: string): { text: string; tone: Tone } {
  if (feed.error) return { text: feed.error, tone: 'error' };
  // The attempt first: at 80 columns the reason (a URL and a code) is what gets cut.
  if (feed.status.state === 'reconnecting')
    return {
      text: [
        `reconnecting, attempt ${feed.status.attempt}: ${feed.status.reason}`,
        ...(q ? [`filter: ${q}`] : []),
      ].join('  ·  '),
      tone: 'warn',
    };
  const parts: string[] = [];
  if (!feed.table.following)
    parts.push(
      feed.table.unseen > 0 ? `paused · ${feed.table.unseen} new (space to follow)` : 'paused (space to follow)',
    );
  if (q) parts.push(`filter: ${q}`);
  if (feed.loadingOlder) parts.push('loading older entries…');
  else if (feed.historyEnd && !feed.table.following && feed.table.selected === feed.table.entries.length - 1)
    parts.push('start of history');
  parts.push(`${feed.table.entries.length} loaded`);
  return { text: parts.join('  ·  '), tone: 'info' };
}

/** One source: the header, the live table or the screen opened from it, the status line, the keys. */
export function Session({
  api,
  source,
  size,
  initialFilter = '',
  recentFilters = [],
  onRecentFilters,
  feedOptions,
  alertsMs = ALERTS_MS,
  onQuit,
}: SessionProps) {
  const [q, setQ] = useState(initialFilter);
  const [recent, setRecent] = useState<readonly string[]>(recentFilters);
  const [body, setBody] = useState<Body>('traffic');
  const [filtering, setFiltering] = useState(false);
  const [entry, setEntry] = useState<HttpTraffic | null>(null);
  // `m` marks an entry; `=` diffs the selected one (B) against it (A).
  const [marked, setMarked] = useState<HttpTraffic | null>(null);
  const [notice, setNotice] = useState<{ text: string; tone: Tone } | null>(null);
  const feed = useTrafficStream(api, source.id, q, feedOptions);
  const alerts = useAsync(async () => firingOf(await api.listAlertRules(source.id)), [api, source.id]);
  const reloadAlerts = alerts.reload;
  useEffect(() => {
    const timer = setInterval(reloadAlerts, alertsMs);
    return () => clearInterval(timer);
  }, [reloadAlerts, alertsMs]);

  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice]);

  const say = useCallback((text: string, tone: Tone = 'info') => setNotice({ text, tone }), []);
  const back = useCallback(() => setBody('traffic'), []);
  // A record or a diff holds the table still, so the header says "paused" while it is open and esc
  // comes back to the row that was opened; space follows again.
  const open = (e: HttpTraffic, view: 'record' | 'diff') => {
    feed.update(pause);
    setEntry(e);
    setBody(view);
  };
  const apply = (next: string) => {
    setFiltering(false);
    setQ(next);
    if (!next) return;
    const list = [next, ...recent.filter((r) => r !== next)].slice(0, RECENT_MAX);
    setRecent(list);
    onRecentFilters?.(list);
  };

  useKeymap(
    {
      '/': () => setFiltering(true),
      l: () => setBody('logs'),
      w: () => setBody('webhooks'),
      r: () => setBody('routes'),
      a: () => setBody('alerts'),
      '?': () => setBody('help'),
    },
    body === 'traffic' && !filtering,
  );
  useKeymap({ escape: back, '?': back }, body === 'help');
  // The webhooks view binds q itself, so that answering its delete question never quits.
  useKeymap({ q: onQuit }, !filtering && body !== 'webhooks');

  // The whole UI stays one line short of the terminal, so Ink redraws in place instead of clearing the screen.
  const height = Math.max(6, size.rows - 1);
  const bodyRows = height - 3;
  const status = notice ?? feedLine(feed, q);
  const screen: Screen = filtering ? 'filter' : body === 'logs' ? 'logs' : body;
  return (
    <Box flexDirection="column" width={size.columns} height={height}>
      <HeaderBar
        source={source.name}
        stats={feed.stats}
        status={feed.status}
        following={feed.table.following}
        width={size.columns}
        firing={alerts.data?.length ?? 0}
      />
      {body === 'traffic' ? (
        <TrafficView
          feed={feed}
          width={size.columns}
          rows={bodyRows}
          active={!filtering}
          filtered={q !== ''}
          markedId={marked?.id}
          onOpen={(e) => open(e, 'record')}
          onMark={(e) => (
            setMarked(e),
            say(
              `marked ${e.method} ${e.status} ${e.pathname} (${e.id.slice(0, 13)}); select another and press = to diff`,
            )
          )}
          onDiff={(e) =>
            marked ? open(e, 'diff') : say('mark an entry with m first, then press = on another', 'warn')
          }
        />
      ) : null}
      {body === 'record' && entry ? (
        <RecordView
          api={api}
          source={source}
          entry={entry}
          width={size.columns}
          rows={bodyRows}
          active
          onBack={back}
          onNotice={say}
        />
      ) : null}
      {body === 'diff' && entry && marked ? (
        <DiffView
          api={api}
          sourceId={source.id}
          a={marked}
          b={entry}
          width={size.columns}
          rows={bodyRows}
          active
          onBack={back}
        />
      ) : null}
      {body === 'logs' ? (
        <CoreLogsView api={api} sourceId={source.id} width={size.columns} rows={bodyRows} active onBack={back} />
      ) : null}
      {body === 'webhooks' ? (
        <WebhooksView
          api={api}
          sourceId={source.id}
          width={size.columns}
          rows={bodyRows}
          active
          onBack={back}
          onNotice={say}
          onQuit={onQuit}
        />
      ) : null}
      {body === 'routes' ? (
        <RoutesView
          api={api}
          sourceId={source.id}
          width={size.columns}
          rows={bodyRows}
          active={!filtering}
          onBack={back}
          onOpen={(group) => {
            apply(routeFilter(group));
            setBody('traffic');
          }}
        />
      ) : null}
      {body === 'alerts' ? (
        <AlertsView
          firing={alerts.data}
          error={alerts.error}
          width={size.columns}
          rows={bodyRows}
          active
          onBack={back}
        />
      ) : null}
      {body === 'help' ? <HelpView rows={bodyRows} /> : null}
      {filtering ? (
        <FilterPrompt
          initial={q}
          recent={recent}
          check={api.checkFilter}
          onApply={apply}
          onClear={() => {
            setFiltering(false);
            setQ('');
          }}
        />
      ) : (
        <StatusLine text={status.text} tone={status.tone} />
      )}
      <Footer screen={screen} width={size.columns} />
    </Box>
  );
}
