import { z } from 'zod';
import { Timestamp, uuidField } from './common.js';

export const WEBHOOK_TYPES = ['discord', 'slack', 'http'] as const;
export const WEBHOOK_LEVELS = ['fatal', 'warning', 'info'] as const;
export const WebhookType = z.enum(WEBHOOK_TYPES, { message: `type must be one of ${WEBHOOK_TYPES.join(', ')}` });
export const WebhookLevel = z.enum(WEBHOOK_LEVELS, { message: `level must be one of ${WEBHOOK_LEVELS.join(', ')}` });

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

export const CreateWebhook = z.object({
  type: WebhookType,
  level: WebhookLevel,
  value: z.string().trim().min(1, 'value must not be empty').max(2048, 'value must be at most 2048 characters'),
});

export const WebhookParams = z.object({ webhookId: uuidField('webhookId') });
