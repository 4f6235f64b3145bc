import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError, invalidField, notFound } from '../http/errors.js';
import { authorizeSource, mount, type RequestContext } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { createWebhook, deleteWebhook, findWebhook, listAttempts, listWebhooks, webhookExists } from './repo.js';
import { checkWebhookTarget } from './targets.js';
import type { WebhookWorker } from './worker.js';

export function webhookRoutes(router: Router, deps: Deps, worker: Pick<WebhookWorker, 'cancel' | 'sendTest'>): void {
  const { db, clock, config } = deps;

  /** The webhook named in a path, after the 404s and then the ownership/scope check (403). */
  async function loadAuthorizedWebhook(ctx: RequestContext, id: string) {
    const webhook = await findWebhook(db, id);
    if (!webhook) throw notFound('webhook_not_found');
    const source = await deps.findSource(webhook.traffic_source_id);
    if (!source) throw notFound('source_not_found');
    authorizeSource(ctx, source);
    return webhook;
  }

  mount(router, deps, contract.listWebhooks, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listWebhooks(db, source.id, query);
  });

  mount(router, deps, contract.createWebhook, async ({ params, body }, ctx) => {
    const problem = checkWebhookTarget(body.type, body.value, config.allowPrivateWebhooks);
    if (problem) throw invalidField('value', problem);
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    if (await webhookExists(db, source.id, body))
      throw new HttpError(409, 'webhook_exists', 'A webhook with this type, level and value already exists');
    return createWebhook(db, clock, source.id, body);
  });

  mount(router, deps, contract.deleteWebhook, async ({ params }, ctx) => {
    const webhook = await loadAuthorizedWebhook(ctx, params.webhookId);
    // Rows first (the cascade drops everything queued), then sends already under way: after
    // both, no worker can claim or finish a send, so nothing reaches the target after the 204.
    // Other daemons abort their sends in flight when they hear of it (milliseconds later).
    await deleteWebhook(db, webhook.id);
    worker.cancel(webhook.id);
    deps.signals.notify('webhook_deleted', webhook.id);
    return undefined;
  });

  mount(router, deps, contract.listWebhookDeliveries, async ({ params, query }, ctx) => {
    const webhook = await loadAuthorizedWebhook(ctx, params.webhookId);
    return listAttempts(db, webhook.id, query);
  });

  mount(router, deps, contract.testWebhook, async ({ params }, ctx) => {
    const webhook = await loadAuthorizedWebhook(ctx, params.webhookId);
    const attempt = await worker.sendTest(webhook.id);
    if (!attempt) throw notFound('webhook_not_found');
    return { delivered: attempt.outcome === 'delivered', attempt };
  });
}
