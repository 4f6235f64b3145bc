import { FilterSyntaxError } from '../filter/parse.js';
import { compareNumber } from '../filter/predicate.js';

/**
 * An alert rule's `--when` (issue 27, docs/alerts.md):
 *
 *   condition := metric operator threshold
 *   threshold := number unit | number "x" "baseline"
 *
 * Latencies in `ms` or `s`, rates in `%`, traffic in `/s`, `/min` or `/h`. Thresholds are kept in
 * one unit per metric (milliseconds, a fraction of 1, requests per minute), so evaluation never
 * converts.
 */
export const ALERT_METRICS = ['p50', 'p90', 'p95', 'p99', 'error_rate', 'client_error_rate', 'requests'] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];
export const ALERT_OPERATORS = ['>', '>=', '<', '<='] as const;
export type AlertOperator = (typeof ALERT_OPERATORS)[number];

export type MetricKind = 'latency' | 'rate' | 'traffic';
export const metricKind = (m: AlertMetric): MetricKind =>
  m === 'requests' ? 'traffic' : m.endsWith('rate') ? 'rate' : 'latency';

/** Each unit, by kind, as the multiplier to the kind's stored unit. */
const UNITS: Readonly<Record<MetricKind, Readonly<Record<string, number>>>> = {
  latency: { ms: 1, s: 1000 },
  rate: { '%': 0.01 },
  traffic: { '/s': 60, '/min': 1, '/h': 1 / 60 },
};

export interface AlertCondition {
  readonly metric: AlertMetric;
  readonly operator: AlertOperator;
  /** Milliseconds, a fraction of 1, or requests per minute; with `baseline`, the factor. */
  readonly threshold: number;
  /** True for `2x baseline`: the threshold is `threshold` times the baseline's median. */
  readonly baseline: boolean;
}

/** A `--when` that does not parse; `column` is 1-based, as the filter language's (same caret). */
export class AlertConditionError extends FilterSyntaxError {}

const isMetric = (t: string): t is AlertMetric => ALERT_METRICS.some((m) => m === t);
const isOperator = (t: string): t is AlertOperator => ALERT_OPERATORS.some((o) => o === t);

/** Tokens with their 1-based columns: a word, an operator, a number, or a unit glued to a number. */
function tokens(text: string): { text: string; column: number }[] {
  const out: { text: string; column: number }[] = [];
  const re = /\s*([<>]=?|[=!]=?|-?\d+(?:\.\d+)?|[A-Za-z_][A-Za-z0-9_]*|%|\/[A-Za-z]*|\S)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < text.length && (m = re.exec(text))) {
    const token = m[1] ?? '';
    if (token === '') break;
    out.push({ text: token, column: m.index + m[0].length - token.length + 1 });
  }
  return out;
}

function rangeProblem(metric: AlertMetric, operator: AlertOperator, value: number): string | undefined {
  const kind = metricKind(metric);
  if (value < 0) return `${metric} cannot be negative`;
  if (kind === 'rate' && value > 1) return `${metric} is a share from 0% to 100%`;
  if (kind === 'rate' && value === 1 && operator === '>')
    return `${metric} can never be over 100%: use a threshold from 0% to 99.9%`;
  if (value === 0 && operator === '<') return `${metric} can never be under 0`;
  return undefined;
}

/** Parses `p95 > 800ms`, `error_rate > 5%`, `requests < 10/min`, `p95 > 2x baseline`. */
export function parseAlertCondition(expression: string): AlertCondition {
  const fail = (reason: string, column: number): never => {
    throw new AlertConditionError(reason, column, expression);
  };
  const t = tokens(expression);
  const end = expression.trimEnd().length + 1;
  const [metric, operator, number, unit, word, extra] = t;
  if (!metric) return fail(`expected a metric: one of ${ALERT_METRICS.join(', ')}`, 1);
  if (!isMetric(metric.text))
    return fail(`unknown metric "${metric.text}": use one of ${ALERT_METRICS.join(', ')}`, metric.column);
  if (!operator) return fail(`expected an operator after ${metric.text}: one of ${ALERT_OPERATORS.join(' ')}`, end);
  if (!isOperator(operator.text))
    return fail(`unknown operator "${operator.text}": use one of ${ALERT_OPERATORS.join(' ')}`, operator.column);
  if (!number) return fail('expected a threshold such as 800ms, 5%, 10/min or 2x baseline', end);
  const value = Number(number.text);
  if (!/^-?\d+(\.\d+)?$/.test(number.text)) return fail(`expected a number, got "${number.text}"`, number.column);
  const kind = metricKind(metric.text);
  if (unit?.text === 'x') {
    if (word?.text !== 'baseline')
      return fail('expected "baseline" after the factor (such as 2x baseline)', word?.column ?? end);
    if (extra) return fail(`unexpected "${extra.text}" after the condition`, extra.column);
    if (!(value > 0)) return fail('the baseline factor must be more than 0 (such as 2x baseline)', number.column);
    return { metric: metric.text, operator: operator.text, threshold: value, baseline: true };
  }
  const units = Object.keys(UNITS[kind]);
  if (!unit) return fail(`expected a unit after ${number.text}: one of ${units.join(', ')} (or "x baseline")`, end);
  const factor = UNITS[kind][unit.text];
  if (factor === undefined)
    return fail(
      `unknown unit "${unit.text}" for ${metric.text}: use one of ${units.join(', ')} (or "x baseline")`,
      unit.column,
    );
  if (word) return fail(`unexpected "${word.text}" after the condition`, word.column);
  const threshold = value * factor;
  const problem = rangeProblem(metric.text, operator.text, threshold);
  if (problem) return fail(problem, number.column);
  return { metric: metric.text, operator: operator.text, threshold, baseline: false };
}

export type ParsedCondition =
  | { readonly ok: true; readonly condition: AlertCondition }
  | { readonly ok: false; readonly error: AlertConditionError };

export function tryParseAlertCondition(expression: string): ParsedCondition {
  try {
    return { ok: true, condition: parseAlertCondition(expression) };
  } catch (error) {
    if (error instanceof AlertConditionError) return { ok: false, error };
    throw error;
  }
}

/** Whether `value` meets the condition's comparison against `threshold` (already resolved). */
export const compare = (operator: AlertOperator, value: number, threshold: number): boolean =>
  compareNumber(value, operator, threshold);

/** A metric's value in its own words: `812 ms`, `5.2%`, `9.5/min`. */
export function formatMetricValue(metric: AlertMetric, value: number): string {
  const kind = metricKind(metric);
  const short = (n: number) =>
    Number.isInteger(n) ? String(n) : n < 10 ? n.toFixed(2).replace(/\.?0+$/, '') : n.toFixed(1).replace(/\.0$/, '');
  if (kind === 'latency') return `${short(value)} ms`;
  if (kind === 'rate') return `${short(value * 100)}%`;
  return `${short(value)}/min`;
}

/** A span as a person reads it: `45s`, `5m`, `1h 5m`, `2d 3h`. */
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
  ];
  const shown = parts.filter(([n]) => n > 0).slice(0, 2);
  return shown.map(([n, u]) => `${n}${u}`).join(' ');
}
