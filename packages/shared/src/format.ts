/**
 * Text formatting shared by the CLI's tables and the terminal UI, so a traffic entry reads the
 * same in both. Pure functions: no colours here (callers colour by `statusClass` / level).
 */

/** `2026-11-21 11:00:00.123` in the machine's local time zone, as people read their logs. */
export function formatLocalTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** Milliseconds as `0.4ms`, `12ms`, `1.25s`, `2m03s`: short, and precise where it matters. */
export function formatLatency(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '-';
  if (ms < 10) return `${Number(ms.toFixed(1))}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(2))}s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

export type StatusClass = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'other';

const STATUS_CLASSES: Readonly<Record<number, StatusClass>> = { 1: '1xx', 2: '2xx', 3: '3xx', 4: '4xx', 5: '5xx' };

export function statusClass(status: number): StatusClass {
  const c = Math.floor(status / 100);
  return STATUS_CLASSES[c] ?? 'other';
}

/** `shop.example.com/api/orders`: the domain and path column of a traffic entry. */
export const trafficTarget = (entry: { readonly domain: string; readonly pathname: string }) =>
  `${entry.domain}${entry.pathname}`;

/** Cuts `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (!Number.isFinite(width) || text.length <= width) return text;
  if (width <= 1) return text.slice(0, Math.max(0, width));
  return `${text.slice(0, width - 1)}…`;
}

/** Bytes as `512 B`, `1.5 KB`, `12.3 MB`, `2 GB`: binary units, as `--max-db-size` takes them. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : Number(value.toFixed(value < 10 ? 2 : 1))} ${units[unit]}`;
}
