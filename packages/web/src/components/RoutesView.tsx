import {
  contract,
  formatLatency,
  type StatsAnswer,
  type StatsGroup,
  type TaplineClient,
} from '@tapline/shared/browser';
import { useEffect, useMemo, useState } from 'react';
import { WINDOWS } from '../url-state.js';
import { Chart } from './Chart.js';

export interface RoutesViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly since: string;
  readonly onSince: (since: string) => void;
  /** A row's "Traffic" button: the list filtered to that route. */
  readonly onOpenRoute: (route: string) => void;
  readonly onError: (error: unknown) => void;
}

/** Buckets of a window: a few dozen points a chart, never more than the daemon keeps. */
const BUCKETS: Record<string, string> = { '15m': '1m', '1h': '1m', '6h': '5m', '24h': '15m', '7d': '1h' };

type SortKey = 'route' | 'count' | 'errorRate' | 'p50' | 'p95' | 'p99';
const COLUMNS: readonly { readonly key: SortKey; readonly label: string }[] = [
  { key: 'route', label: 'Route' },
  { key: 'count', label: 'Requests' },
  { key: 'errorRate', label: 'Errors' },
  { key: 'p50', label: 'p50' },
  { key: 'p95', label: 'p95' },
  { key: 'p99', label: 'p99' },
];

const routeName = (group: StatsGroup) => `${group.method ?? ''} ${group.route ?? '(no route)'}`.trim();
const ms = (value: number | null | undefined) => (value === null || value === undefined ? '–' : formatLatency(value));
const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;

/** The change from the previous window, `+12 ms` or `-3.0 %`; empty without one. */
function delta(now: number | null, before: number | null | undefined, format: (n: number) => string): string {
  if (now === null || before === null || before === undefined) return '';
  const change = now - before;
  return `${change >= 0 ? '+' : '−'}${format(Math.abs(change))}`;
}

function sortValue(group: StatsGroup, key: SortKey): number | string {
  if (key === 'route') return routeName(group);
  return group[key] ?? -1;
}

/** `GET /stats` by route and method, with sparklines, sortable, and the chart of the chosen route. */
export function RoutesView({ client, sourceId, since, onSince, onOpenRoute, onError }: RoutesViewProps) {
  const [answer, setAnswer] = useState<StatsAnswer | undefined>();
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'p95', descending: true });
  const [chosen, setChosen] = useState<string | undefined>();

  useEffect(() => {
    setAnswer(undefined);
    client
      .call(contract.getStats, {
        params: { trafficSourceId: sourceId },
        query: { since, by: 'route,method', series: '1', bucket: BUCKETS[since] ?? '1m', compare: 'previous' },
      })
      .then(setAnswer, onError);
  }, [client, sourceId, since, onError]);

  const groups = useMemo(() => {
    const list = [...(answer?.data ?? [])];
    list.sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      const order = typeof x === 'string' || typeof y === 'string' ? String(x).localeCompare(String(y)) : x - y;
      return sort.descending ? -order : order;
    });
    return list;
  }, [answer, sort]);

  const selected = groups.find((g) => routeName(g) === chosen) ?? groups[0];
  const times = useMemo(() => (selected?.series ?? []).map((p) => Date.parse(p.start) / 1000), [selected]);
  const latency = useMemo(
    () => [{ label: 'p95 (ms)', stroke: '#d9480f', values: (selected?.series ?? []).map((p) => p.p95) }],
    [selected],
  );
  const volume = useMemo(
    () => [
      { label: 'requests', stroke: '#1c7ed6', values: (selected?.series ?? []).map((p) => p.count) },
      { label: '5xx', stroke: '#e03131', values: (selected?.series ?? []).map((p) => p.status5xx) },
    ],
    [selected],
  );

  return (
    <section className="routes-view" aria-label="Routes">
      <div className="toolbar">
        <label>
          Window
          <select value={since} onChange={(e) => onSince(e.target.value)}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                last {w}
              </option>
            ))}
          </select>
        </label>
        {answer?.meta.retention && <span className="muted">{answer.meta.retention.note}</span>}
      </div>
      {answer === undefined ? (
        <p role="status">Loading statistics…</p>
      ) : groups.length === 0 ? (
        <p className="empty">No requests in the last {since}.</p>
      ) : (
        <>
          <table className="stats">
            <caption>Routes over the last {since}, compared with the window before</caption>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column.key}
                    scope="col"
                    aria-sort={sort.key === column.key ? (sort.descending ? 'descending' : 'ascending') : undefined}
                  >
                    <button
                      type="button"
                      className="link"
                      onClick={() =>
                        setSort({
                          key: column.key,
                          descending: sort.key === column.key ? !sort.descending : column.key !== 'route',
                        })
                      }
                    >
                      {column.label}
                    </button>
                  </th>
                ))}
                <th scope="col">Requests over time</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => {
                const name = routeName(group);
                const series = group.series ?? [];
                return (
                  <tr key={name} aria-selected={selected === group}>
                    <th scope="row">
                      <button type="button" className="link" onClick={() => setChosen(name)}>
                        {name}
                      </button>
                    </th>
                    <td>
                      {group.count} <span className="delta">{delta(group.count, group.previous?.count, String)}</span>
                    </td>
                    <td>
                      {percent(group.errorRate)}{' '}
                      <span className="delta">
                        {delta(
                          group.errorRate * 100,
                          group.previous ? group.previous.errorRate * 100 : undefined,
                          (n) => `${n.toFixed(1)} %`,
                        )}
                      </span>
                    </td>
                    <td>{ms(group.p50)}</td>
                    <td>
                      {ms(group.p95)}{' '}
                      <span className="delta">{delta(group.p95, group.previous?.p95, formatLatency)}</span>
                    </td>
                    <td>{ms(group.p99)}</td>
                    <td>
                      <Sparkline
                        values={series.map((p) => p.count)}
                        starts={series.map((p) => p.start)}
                        label={`Requests over time for ${name}`}
                      />
                    </td>
                    <td>
                      {group.route && (
                        <button type="button" onClick={() => onOpenRoute(group.route ?? '')}>
                          Traffic<span className="visually-hidden"> of {name}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {selected && times.length > 0 && (
            <div className="charts">
              <h2>{routeName(selected)}</h2>
              <Chart
                times={times}
                series={latency}
                height={220}
                label={`p95 latency over time for ${routeName(selected)}`}
              />
              <Chart
                times={times}
                series={volume}
                height={180}
                label={`Requests and server errors over time for ${routeName(selected)}`}
              />
            </div>
          )}
        </>
      )}
    </section>
  );
}

function Sparkline({
  values,
  starts,
  label,
}: {
  readonly values: readonly number[];
  readonly starts: readonly string[];
  readonly label: string;
}) {
  const times = useMemo(() => starts.map((s) => Date.parse(s) / 1000), [starts]);
  const series = useMemo(() => [{ label: 'requests', stroke: '#1c7ed6', values }], [values]);
  if (values.length < 2) return null;
  return <Chart times={times} series={series} height={28} compact label={label} />;
}
