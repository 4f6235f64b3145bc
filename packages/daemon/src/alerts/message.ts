import { formatMetricValue, formatSpan } from '@tapline/shared/lean';
import type { AlertPayload, Level } from '@tapline/shared';
import { type Rich, rich } from '../webhooks/escape.js';
import type { Observation } from './observe.js';
import type { AlertRuleRow } from './table.js';

/** A shell word: single quotes, a quote inside written as '\''. */
const quote = (text: string) => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/** `tapline stats …` showing the window a message is about. */
export function statsCommand(
  sourceId: string,
  rule: Pick<AlertRuleRow, 'route' | 'method'>,
  window: { since: string; until: string },
): string {
  const words = ['tapline', 'stats', sourceId, '--since', window.since, '--until', window.until];
  if (rule.route) words.push('--route', quote(rule.route));
  if (rule.method) words.push('--where', quote(`method=${rule.method}`));
  return words.join(' ');
}

export interface PayloadFacts {
  readonly state: AlertPayload['state'];
  readonly since: string;
  readonly at: string;
  readonly test?: boolean;
  readonly reminder?: boolean;
}

export function alertPayload(rule: AlertRuleRow, seen: Observation, facts: PayloadFacts): AlertPayload {
  return {
    ruleId: rule.id,
    rule: rule.condition,
    state: facts.state,
    test: facts.test ?? false,
    reminder: facts.reminder ?? false,
    metric: rule.metric,
    value: seen.value,
    threshold: seen.threshold,
    window: seen.window,
    route: rule.route,
    method: rule.method,
    since: facts.since,
    at: facts.at,
    requests: seen.requests,
    baseline: seen.baseline,
    command: statsCommand(rule.traffic_source_id, rule, seen.window),
  };
}

/** What both chats show of an alert; values from traffic (route) stay values, escaped per chat. */
export interface AlertCard {
  readonly level: Level;
  readonly title: Rich;
  readonly description: Rich;
  readonly fields: readonly { readonly name: string; readonly value: Rich }[];
  readonly time: string;
}

const shown = (p: AlertPayload, v: number | null) => (v === null ? 'no data' : formatMetricValue(p.metric, v));
const where = (p: AlertPayload): Rich =>
  p.route || p.method ? rich` on ${[p.method, p.route].filter(Boolean).join(' ')}` : rich` on every route`;

export function alertCard(p: AlertPayload): AlertCard {
  const firing = p.state === 'firing';
  const label = `${p.test ? 'TEST · ' : ''}${p.reminder ? 'STILL FIRING' : firing ? 'FIRING' : 'RESOLVED'}`;
  const span = formatSpan(Date.parse(p.window.until) - Date.parse(p.window.since));
  const lasted = formatSpan(Date.parse(p.at) - Date.parse(p.since));
  const baseline = p.baseline
    ? rich` (${p.baseline.days.filter((d) => d.value !== null).length} of ${p.baseline.days.length} previous days, median ${shown(p, p.baseline.median)})`
    : rich``;
  const description = firing
    ? rich`${p.metric} was ${shown(p, p.value)} over ${span} (${p.requests} requests); threshold ${shown(p, p.threshold)}${baseline}. Firing since ${p.since}.`
    : rich`${p.metric} is back: ${shown(p, p.value)} over ${span} (${p.requests} requests); threshold ${shown(p, p.threshold)}${baseline}. It fired for ${lasted}.`;
  return {
    level: firing ? 'FATAL' : 'INFO',
    // \u00b7 is the middle dot (\u2192 an arrow), escaped: the daemon's bundle stays ASCII (decisions §20.3).
    title: rich`${label} \u00b7 ${p.rule}${where(p)}`,
    description,
    fields: [
      { name: 'Value', value: rich`${shown(p, p.value)}` },
      { name: 'Threshold', value: rich`${shown(p, p.threshold)}` },
      { name: firing ? 'Since' : 'Fired for', value: rich`${firing ? p.since : lasted}` },
      { name: 'See it', value: rich`${p.command}` },
    ],
    time: p.at,
  };
}
