import { parseAlertCondition } from '@tapline/shared/lean';
import type { Contract } from '@tapline/shared';
import type { Router } from 'express';
import { authorizeSource } from '../auth/policy.js';
import type { Deps } from '../deps.js';
import { HttpError } from '../http/errors.js';
import type { RequestContext } from '../http/mount.js';
import { mountTable } from '../http/table.js';
import { findWebhook } from '../webhooks/repo.js';
import { newId } from '../clock.js';
import { queueMessages } from './lease.js';
import { alertPayload } from './message.js';
import { createRule, deleteRule, listEvents, listRules, webhookIdsOf } from './repo.js';

/** `/alerts/…` (docs/alerts.md): rules, their history, and a sample message through the outbox. */
export function alertRoutes(router: Router, deps: Deps, outbox: { nudge(): void }): void {
  const { db, clock } = deps;

  /**
   * Each webhook must exist (404), be the caller's (403), and belong to the rule's source (404): a
   * list in the body, which `access` cannot name, so checked here by the same policy.
   */
  async function checkWebhooks(
    ctx: RequestContext<Contract['createAlertRule']>,
    sourceId: string,
    ids: readonly string[],
  ) {
    for (const id of ids) {
      const webhook = await findWebhook(db, id);
      if (!webhook) throw new HttpError(404, 'webhook_not_found', `Webhook ${id} not found`);
      const owner = await deps.findSource(webhook.traffic_source_id);
      if (!owner) throw new HttpError(404, 'webhook_not_found', `Webhook ${id} not found`);
      authorizeSource(ctx.principal, ctx.endpoint, owner);
      if (owner.id !== sourceId)
        throw new HttpError(
          404,
          'webhook_not_found',
          `Webhook ${id} belongs to another traffic source; a rule notifies webhooks of its own source`,
        );
    }
  }

  mountTable(router, deps, 'alerts', {
    listAlertRules: async ({ query }, { loaded: source }) => listRules(db, source.id, query),

    createAlertRule: async ({ body }, ctx) => {
      await checkWebhooks(ctx, ctx.loaded.id, body.webhookIds);
      // The schema checked that it parses.
      return createRule(db, clock, ctx.loaded.id, body, parseAlertCondition(body.when));
    },

    listAlertHistory: async ({ query }, { loaded: source }) => listEvents(db, source.id, query),

    deleteAlertRule: async (_input, { loaded: rule }) => {
      await deleteRule(db, rule.id);
      return undefined;
    },

    testAlertRule: async (_input, { loaded: rule }) => {
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
    },
  });
}
