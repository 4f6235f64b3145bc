import {
  type AlertRule,
  contract,
  formatLocalTime,
  formatMetricValue,
  formatSpan,
  type TaplineClient,
} from '@tapline/shared/browser';
import { useEffect, useState } from 'react';

export interface AlertsBannerProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly onError: (error: unknown) => void;
  /** How often the rules are asked for again; the daemon evaluates them every 30 s by default. */
  readonly refreshMs?: number;
}

const REFRESH_MS = 10_000;

/** `POST /checkout`, `/checkout`, `POST (every route)` or `every route`, as `tapline alerts list` says. */
export const scope = (r: Pick<AlertRule, 'route' | 'method'>) =>
  [r.method, r.route ?? (r.method ? '(every route)' : 'every route')].filter(Boolean).join(' ');

/**
 * The rules of the source firing now, under the header of every view, longest firing first; nothing
 * at all while none fires (issue 27, "Where it shows").
 */
export function AlertsBanner({ client, sourceId, onError, refreshMs = REFRESH_MS }: AlertsBannerProps) {
  const [firing, setFiring] = useState<readonly AlertRule[]>([]);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    let live = true;
    const load = () =>
      client.call(contract.listAlertRules, { params: { trafficSourceId: sourceId }, query: { limit: 1000 } }).then(
        (page) => {
          if (!live) return;
          setNow(Date.now());
          setFiring(
            page.data
              .filter((r) => r.state === 'firing')
              .sort((a, b) => Date.parse(a.stateSince) - Date.parse(b.stateSince)),
          );
        },
        (error: unknown) => live && onError(error),
      );
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [client, sourceId, onError, refreshMs]);

  if (firing.length === 0) return null;
  return (
    <section className="alerts-banner" aria-label="Alerts firing">
      <h2>
        {firing.length} alert rule{firing.length === 1 ? '' : 's'} firing
      </h2>
      <ul>
        {firing.map((r) => (
          <li key={r.id}>
            <strong>{scope(r)}</strong> <code>{r.when}</code> since{' '}
            <time dateTime={r.stateSince}>{formatLocalTime(r.stateSince)}</time> (
            {formatSpan(now - Date.parse(r.stateSince))}), value{' '}
            {r.lastValue === null ? '–' : formatMetricValue(r.metric, r.lastValue)} over {r.lastRequests ?? 0} request
            {r.lastRequests === 1 ? '' : 's'}
          </li>
        ))}
      </ul>
    </section>
  );
}
