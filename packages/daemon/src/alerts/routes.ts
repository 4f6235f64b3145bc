import { contract, parseAlertCondition } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { HttpError, notFound } from '../http/errors.js';
import { authorizeSource, mount, type RequestContext } from '../http/mount.js';
import { loadAuthorizedSource } from '../traffic-sources/load.js';
import { findWebhook } from '../webhooks/repo.js';
import { newId } from '../clock.js';
import { queueMessages } from './lease.js';
import { alertPayload } from './message.js';
import { createRule, deleteRule, findRule, listEvents, listRules, webhookIdsOf } from './repo.js';

/** `/alerts/…` (docs/alerts.md): rules, their history, and a sample message through the outbox. */
export function alertRoutes(router: Router, deps: Deps, outbox: { nudge(): void }): void {
  const { db, clock } = deps;

  async function loadAuthorizedRule(ctx: RequestContext, id: string) {
    const rule = await findRule(db, id);
    if (!rule) throw notFound('alert_rule_not_found');
    const source = await deps.findSource(rule.traffic_source_id);
    if (!source) throw notFound('source_not_found');
    authorizeSource(ctx, source);
    return rule;
  }

  /** Each webhook must exist (404), be the caller's (403), and belong to the rule's source (404). */
  async function checkWebhooks(ctx: RequestContext, sourceId: string, ids: readonly string[]) {
    for (const id of ids) {
      const webhook = await findWebhook(db, id);
      if (!webhook) throw new HttpError(404, 'webhook_not_found', `Webhook ${id} not found`);
      const owner = await deps.findSource(webhook.traffic_source_id);
      if (!owner) throw new HttpError(404, 'webhook_not_found', `Webhook ${id} not found`);
      authorizeSource(ctx, owner);
      if (owner.id !== sourceId)
        throw new HttpError(
          404,
          'webhook_not_found',
          `Webhook ${id} belongs to another traffic source; a rule notifies webhooks of its own source`,
        );
    }
  }

  mount(router, deps, contract.listAlertRules, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listRules(db, source.id, query);
  });

  mount(router, deps, contract.createAlertRule, async ({ params, body }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    await checkWebhooks(ctx, source.id, body.webhookIds);
    // The schema checked that it parses.
    return createRule(db, clock, source.id, body, parseAlertCondition(body.when));
  });

  mount(router, deps, contract.listAlertHistory, async ({ params, query }, ctx) => {
    const source = await loadAuthorizedSource(deps, ctx, params.trafficSourceId);
    return listEvents(db, source.id, query);
  });

  mount(router, deps, contract.deleteAlertRule, async ({ params }, ctx) => {
    const rule = await loadAuthorizedRule(ctx, params.ruleId);
    await deleteRule(db, rule.id);
    return undefined;
  });

  mount(router, deps, contract.testAlertRule, async ({ params }, ctx) => {
    const rule = await loadAuthorizedRule(ctx, params.ruleId);
    const webhookIds = (await webhookIdsOf(db, [rule.id])).get(rule.id) ?? [];
    const now = clock.now();
    const at = now.toISOString();
    const window = { since: new Date(now.getTime() - Number(rule.window_ms)).toISOString(), until: at };
    const sample = {
      met: true,
      value: rule.last_value === null ? null : Number(rule.last_value),
      threshold: rule.baseline_days === null ? Number(rule.threshold) : null,
      requests: Number(rule.last_requests ?? 0),
      window,
      baseline: null,
    };
    const payload = alertPayload(rule, sample, { state: 'firing', since: at, at, test: true });
    await queueMessages(
      db,
      webhookIds.map((webhookId) => ({ id: newId(), webhookId, payload })),
      at,
    );
    if (webhookIds.length > 0) outbox.nudge();
    return { webhookIds };
  });
}
