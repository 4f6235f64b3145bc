import { z } from 'zod';
import { ALERT_METRICS, ALERT_OPERATORS, tryParseAlertCondition } from '../alerts/condition.js';
import { Timestamp, uuidField } from './common.js';
import { Method, RouteParam } from './http-traffic.js';
import { durationMs } from './stats.js';
import { HTTP_METHODS } from './traffic-enums.js';

const HttpMethod = z.enum(HTTP_METHODS);

export const ALERT_STATES = ['ok', 'pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** `--for` and `--window`: 1 minute to 24 hours (issue 27). `--repeat`: 1 minute to 7 days. */
export const ALERT_SPAN = { min: 60_000, max: 86_400_000 } as const;
export const ALERT_REPEAT = { min: 60_000, max: 7 * 86_400_000 } as const;
/** `--baseline`: how many previous days' same window the median is taken over. */
export const ALERT_BASELINE_DAYS = { min: 1, max: 28, default: 7 } as const;
export const ALERT_DEFAULTS = { window: '5m', minRequests: 10 } as const;

const Span = (name: string, range: { min: number; max: number }, example: string) =>
  z.string().refine(
    (v) => {
      const ms = durationMs(v);
      return ms !== undefined && ms >= range.min && ms <= range.max;
    },
    `${name} must be a duration from ${range.min / 60_000}m to ${range.max >= 86_400_000 * 2 ? `${range.max / 86_400_000}d` : `${range.max / 3_600_000}h`}, such as ${example}`,
  );

const When = z
  .string()
  .max(200, 'when must be at most 200 characters')
  .superRefine((text, ctx) => {
    const parsed = tryParseAlertCondition(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `${parsed.error.reason} (column ${parsed.error.column})` });
  })
  .meta({
    description:
      'metric operator threshold: p95 > 800ms, error_rate > 5%, requests < 10/min, p95 > 2x baseline (docs/alerts.md)',
  });

export const CreateAlertRule = z.object({
  when: When,
  route: RouteParam.optional(),
  method: Method.optional(),
  for: Span('for', ALERT_SPAN, '5m').optional(),
  window: Span('window', ALERT_SPAN, '5m').optional(),
  minRequests: z
    .number()
    .int('minRequests must be a whole number')
    .min(0, 'minRequests must be 0 or more')
    .max(1_000_000, 'minRequests must be at most 1000000')
    .optional(),
  repeat: Span('repeat', ALERT_REPEAT, '4h').optional(),
  baseline: z
    .string()
    .regex(/^\d+d$/, 'baseline must be a number of days such as 7d')
    .refine((v) => {
      const days = Number.parseInt(v, 10);
      return days >= ALERT_BASELINE_DAYS.min && days <= ALERT_BASELINE_DAYS.max;
    }, `baseline must be from ${ALERT_BASELINE_DAYS.min}d to ${ALERT_BASELINE_DAYS.max}d`)
    .optional(),
  webhookIds: z
    .array(uuidField('webhookIds[]'))
    .min(1, 'name at least one webhook to notify')
    .max(20, 'at most 20 webhooks'),
});
export type CreateAlertRule = z.infer<typeof CreateAlertRule>;

export const AlertRule = z.object({
  id: z.uuid(),
  trafficSourceId: z.uuid(),
  when: z.string(),
  metric: z.enum(ALERT_METRICS),
  operator: z.enum(ALERT_OPERATORS),
  /** Milliseconds, a fraction of 1, or requests per minute; the factor when `baseline` is set. */
  threshold: z.number(),
  /** Days of the baseline (`p95 > 2x baseline`), else null. */
  baselineDays: z.number().int().nullable(),
  route: z.string().nullable(),
  method: HttpMethod.nullable(),
  forMs: z.number().int(),
  windowMs: z.number().int(),
  minRequests: z.number().int(),
  repeatMs: z.number().int().nullable(),
  /** The webhooks it notifies that still exist; empty: it has no target (they were deleted). */
  webhookIds: z.array(z.uuid()),
  state: z.enum(ALERT_STATES),
  stateSince: Timestamp,
  lastValue: z.number().nullable(),
  lastRequests: z.number().int().nullable(),
  evaluatedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type AlertRule = z.infer<typeof AlertRule>;

/** The baseline's figures: each previous day's value of the metric (null without enough requests) and their median. */
export const AlertBaseline = z.object({
  median: z.number().nullable(),
  days: z.array(
    z.object({ since: Timestamp, until: Timestamp, value: z.number().nullable(), requests: z.number().int() }),
  ),
});
export type AlertBaseline = z.infer<typeof AlertBaseline>;

/** One transition, as kept in the history (GET /alerts/:trafficSourceId/history). */
export const AlertEvent = z.object({
  id: z.uuid(),
  ruleId: z.uuid(),
  when: z.string(),
  from: z.enum(ALERT_STATES),
  to: z.enum(ALERT_STATES),
  at: Timestamp,
  /** The metric over the window (ms, a fraction, or per minute); null when the window held no request. */
  value: z.number().nullable(),
  /** The threshold it was compared with (for a baseline rule: factor × median). */
  threshold: z.number().nullable(),
  windowSince: Timestamp,
  windowUntil: Timestamp,
  requests: z.number().int(),
  baseline: AlertBaseline.nullable(),
  /** Messages queued for it (0 for transitions that notify nobody: to pending, back to ok). */
  notified: z.number().int(),
});
export type AlertEvent = z.infer<typeof AlertEvent>;

export const AlertRuleParams = z.object({ ruleId: uuidField('ruleId') });

/** POST /alerts/rules/:ruleId/test: the webhooks a sample firing message was queued for. */
export const AlertTestResult = z.object({ webhookIds: z.array(z.uuid()) });

/**
 * What an `http` webhook receives for an alert (`event: "alert"`), and what the outbox keeps for
 * every format: docs/alerts.md, "Messages".
 */
export const AlertPayload = z.object({
  ruleId: z.uuid(),
  rule: z.string(),
  state: z.enum(['firing', 'resolved']),
  /** True for `tapline alerts test`: a sample, not a transition. */
  test: z.boolean(),
  /** True for a `--repeat` reminder of a rule still firing. */
  reminder: z.boolean(),
  metric: z.enum(ALERT_METRICS),
  value: z.number().nullable(),
  threshold: z.number().nullable(),
  /** The window the value was computed over, `[since, until)`. */
  window: z.object({ since: Timestamp, until: Timestamp }),
  route: z.string().nullable(),
  method: HttpMethod.nullable(),
  /** When it started firing (for resolved: how long it fired is `at` − `since`). */
  since: Timestamp,
  at: Timestamp,
  requests: z.number().int(),
  baseline: AlertBaseline.nullable(),
  /** `tapline stats …` that shows the window. */
  command: z.string(),
});
export type AlertPayload = z.infer<typeof AlertPayload>;
