import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError, invalidField, notFound } from '../http/errors.js';
import { mountTable } from '../http/table.js';
import { createWebhook, deleteWebhook, listAttempts, listWebhooks, webhookExists } from './repo.js';
import { checkWebhookTarget } from './targets.js';
import type { WebhookWorker } from './worker.js';

export function webhookRoutes(router: Router, deps: Deps, worker: Pick<WebhookWorker, 'cancel' | 'sendTest'>): void {
  const { db, clock, config } = deps;

  mountTable(router, deps, 'webhooks', {
    listWebhooks: async ({ query }, { loaded: source }) => listWebhooks(db, source.id, query),

    createWebhook: {
      kind: 'json',
      // A 400, so before the source's 404 and 403.
      validate: ({ body }) => {
        const problem = checkWebhookTarget(body.type, body.value, config.allowPrivateWebhooks);
        if (problem) throw invalidField('value', problem);
      },
      handler: async ({ body }, { loaded: source }) => {
        if (await webhookExists(db, source.id, body))
          throw new HttpError(409, 'webhook_exists', 'A webhook with this type, level and value already exists');
        return createWebhook(db, clock, source.id, body);
      },
    },

    deleteWebhook: async (_input, { loaded: webhook }) => {
      // Rows first (the cascade drops everything queued), then sends already under way: after
      // both, no worker can claim or finish a send, so nothing reaches the target after the 204.
      // Other daemons abort their sends in flight when they hear of it (milliseconds later).
      await deleteWebhook(db, webhook.id);
      worker.cancel(webhook.id);
      deps.signals.notify('webhook_deleted', webhook.id);
      return undefined;
    },

    listWebhookDeliveries: async ({ query }, { loaded: webhook }) => listAttempts(db, webhook.id, query),

    testWebhook: async (_input, { loaded: webhook }) => {
      const attempt = await worker.sendTest(webhook.id);
      if (!attempt) throw notFound('webhook_not_found');
      return { delivered: attempt.outcome === 'delivered', attempt };
    },
  });
}
