import { describe, expect, it } from 'vitest';
import { formatLatency, formatLocalTime, statusClass, truncate } from './format.js';

describe('format', () => {
  it('shows latency short but precise', () => {
    expect([0.42, 3.14, 12.5, 999, 1250, 61_000, Number.NaN].map(formatLatency)).toEqual([
      '0.4ms',
      '3.1ms',
      '13ms',
      '999ms',
      '1.25s',
      '1m01s',
      '-',
    ]);
  });

  it('shows times in local time, to the millisecond', () => {
    const iso = '2026-11-21T10:00:00.123Z';
    const d = new Date(iso);
    expect(formatLocalTime(iso)).toBe(
      `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${String(d.getHours()).padStart(2, '0')}:00:00.123`,
    );
    expect(formatLocalTime('not a time')).toBe('not a time');
  });

  it('classes statuses and cuts text', () => {
    expect([101, 204, 302, 404, 503, 99].map(statusClass)).toEqual(['1xx', '2xx', '3xx', '4xx', '5xx', 'other']);
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', Number.POSITIVE_INFINITY)).toBe('abcdef');
  });
});
