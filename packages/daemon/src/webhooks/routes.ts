import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { conflict, HttpError, notFound } from '../http/errors.js';
import { authorizeSource, mount } from '../http/mount.js';
import { findTrafficSource } from '../traffic-sources/repo.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { createWebhook, deleteWebhook, findWebhook, listWebhooks, webhookExists } from './repo.js';
import { checkWebhookTarget } from './targets.js';

export function webhookRoutes(router: Router, deps: Deps): void {
  const { db, clock, config } = deps;

  mount(router, deps, contract.listWebhooks, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listWebhooks(db, source.id, query);
  });

  mount(router, deps, contract.createWebhook, async ({ params, body }, ctx) => {
    const problem = checkWebhookTarget(body.type, body.value, config.allowPrivateWebhooks);
    if (problem) throw new HttpError(400, problem, [{ path: 'value', message: problem }]);
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    if (await webhookExists(db, source.id, body)) throw conflict('A webhook with this type, level and value already exists');
    return createWebhook(db, clock, source.id, body);
  });

  mount(router, deps, contract.deleteWebhook, async ({ params }, ctx) => {
    const webhook = await findWebhook(db, params.webhookId);
    if (!webhook) throw notFound('Webhook');
    const source = await findTrafficSource(db, webhook.traffic_source_id);
    if (!source) throw notFound('Traffic Source');
    authorizeSource(ctx, source);
    await deleteWebhook(db, webhook.id);
    return undefined;
  });
}
