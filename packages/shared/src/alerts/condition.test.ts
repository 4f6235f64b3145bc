import { describe, expect, it } from 'vitest';
import { pointAtColumn } from '../filter/parse.js';
import { formatMetricValue, formatSpan, parseAlertCondition, tryParseAlertCondition } from './condition.js';

describe('alert conditions (--when)', () => {
  it('reads each kind of threshold into one unit per metric', () => {
    expect(parseAlertCondition('p95 > 800ms')).toEqual({
      metric: 'p95',
      operator: '>',
      threshold: 800,
      baseline: false,
    });
    expect(parseAlertCondition('p99>=1.5s')).toEqual({
      metric: 'p99',
      operator: '>=',
      threshold: 1500,
      baseline: false,
    });
    expect(parseAlertCondition('error_rate > 5%')).toEqual({
      metric: 'error_rate',
      operator: '>',
      threshold: 0.05,
      baseline: false,
    });
    expect(parseAlertCondition('client_error_rate > 20 %')).toMatchObject({ threshold: 0.2 });
    expect(parseAlertCondition('requests < 10/min')).toEqual({
      metric: 'requests',
      operator: '<',
      threshold: 10,
      baseline: false,
    });
    expect(parseAlertCondition('requests > 2/s')).toMatchObject({ threshold: 120 });
    expect(parseAlertCondition('p95 > 2x baseline')).toEqual({
      metric: 'p95',
      operator: '>',
      threshold: 2,
      baseline: true,
    });
  });

  it('points at the column of a mistake and names what exists', () => {
    const caret = (text: string) => {
      const parsed = tryParseAlertCondition(text);
      if (parsed.ok) throw new Error(`${text} parsed`);
      return pointAtColumn(parsed.error);
    };
    expect(caret('p95 > 800 parsecs')).toBe(
      'p95 > 800 parsecs\n          ^ unknown unit "parsecs" for p95: use one of ms, s (or "x baseline")',
    );
    expect(caret('latency > 800ms')).toBe(
      'latency > 800ms\n^ unknown metric "latency": use one of p50, p90, p95, p99, error_rate, client_error_rate, requests',
    );
    expect(caret('p95 => 800ms')).toMatch(/^ {4}\^ unknown operator "=": use one of > >= < <=$/m);
    expect(caret('p95 >')).toMatch(/^ {5}\^ expected a threshold/m);
    expect(caret('error_rate > 5ms')).toMatch(/unknown unit "ms" for error_rate: use one of %/);
    expect(caret('p95 > 2x median')).toMatch(/expected "baseline"/);
  });

  it('refuses thresholds that cannot be met, at the edges', () => {
    expect(tryParseAlertCondition('error_rate > 100%').ok).toBe(false);
    expect(tryParseAlertCondition('error_rate > 99.9%').ok).toBe(true);
    expect(tryParseAlertCondition('error_rate >= 100%').ok).toBe(true);
    expect(tryParseAlertCondition('error_rate > 100.1%').ok).toBe(false);
    expect(tryParseAlertCondition('p95 > -1ms').ok).toBe(false);
    expect(tryParseAlertCondition('p95 > 0ms').ok).toBe(true);
    expect(tryParseAlertCondition('requests < 0/min').ok).toBe(false);
    expect(tryParseAlertCondition('p95 > 0x baseline').ok).toBe(false);
  });

  it('formats values and spans for messages', () => {
    expect(formatMetricValue('p95', 812.345)).toBe('812.3 ms');
    expect(formatMetricValue('error_rate', 0.052)).toBe('5.2%');
    expect(formatMetricValue('requests', 9.5)).toBe('9.5/min');
    expect(formatSpan(45_000)).toBe('45s');
    expect(formatSpan(3_900_000)).toBe('1h 5m');
  });
});
