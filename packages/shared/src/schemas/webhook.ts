import { z } from 'zod';
import { Timestamp, uuidField } from './common.js';
import { WEBHOOK_LEVELS, WEBHOOK_TYPES, WEBHOOK_URL_RULES } from './webhook-rules.js';

export { WEBHOOK_LEVELS, WEBHOOK_TYPES, WEBHOOK_URL_RULES };

export const WebhookType = z.enum(WEBHOOK_TYPES, { message: `type must be one of ${WEBHOOK_TYPES.join(', ')}` });
export const WebhookLevel = z.enum(WEBHOOK_LEVELS, { message: `level must be one of ${WEBHOOK_LEVELS.join(', ')}` });
export type WebhookType = z.infer<typeof WebhookType>;
export type WebhookLevel = z.infer<typeof WebhookLevel>;

export const Webhook = z.object({
  id: z.uuid(),
  type: WebhookType,
  level: WebhookLevel,
  value: z.string(),
  trafficSourceId: z.uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Webhook = z.infer<typeof Webhook>;

/** The 201 answer: an `http` webhook's signing secret is shown here once and never again. */
export const CreatedWebhook = Webhook.extend({ secret: z.string().optional() });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

/** A type's rule as a JSON Schema pattern: https, one of its hosts, its path (a query is not described). */
function urlPattern({ hosts, path }: (typeof WEBHOOK_URL_RULES)[WebhookType]): string {
  if (!hosts || !path) return '^[hH][tT][tT][pP][sS]?://';
  return `^https://(?:${hosts.map((h) => h.replaceAll('.', '\\.')).join('|')})${path.source.replace(/^\^/, '')}`;
}

export const CreateWebhook = z
  .object({
    type: WebhookType,
    level: WebhookLevel,
    value: z.string().trim().min(1, 'value must not be empty').max(2048, 'value must be at most 2048 characters').meta({
      format: 'uri',
      description:
        'The URL to post to; loopback and private addresses only with --allow-private-webhooks, link-local and metadata ones never.',
    }),
  })
  .meta({
    anyOf: WEBHOOK_TYPES.map((type) => ({
      properties: { type: { const: type }, value: { pattern: urlPattern(WEBHOOK_URL_RULES[type]) } },
    })),
  });

export const WebhookParams = z.object({ webhookId: uuidField('webhookId') });

/** What a delivery carries: a traffic entry, a storm summary, a test message, or an alert's transition (docs/alerts.md). */
export const WEBHOOK_DELIVERY_KINDS = ['traffic', 'summary', 'test', 'alert'] as const;
/** `retrying` means another attempt is scheduled at `nextAttemptAt`. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;

/** One attempt to deliver one message to a webhook (GET /webhooks/:webhookId/deliveries). */
export const WebhookAttempt = z.object({
  id: z.uuid(),
  deliveryId: z.uuid(),
  kind: z.enum(WEBHOOK_DELIVERY_KINDS),
  /** The traffic entry announced; null for summaries and tests. */
  httpTrafficId: z.uuid().nullable(),
  /** 1 for the first try of a message, 2 for its first retry, and so on. */
  attempt: z.number().int().min(1),
  outcome: z.enum(WEBHOOK_ATTEMPT_OUTCOMES),
  /** The receiver's HTTP status; null when no answer came (refused, timed out, address not allowed). */
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int().min(0),
  nextAttemptAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

/** POST /webhooks/:webhookId/test answers with the one attempt it made. */
export const WebhookTestResult = z.object({ delivered: z.boolean(), attempt: WebhookAttempt });
export type WebhookTestResult = z.infer<typeof WebhookTestResult>;
