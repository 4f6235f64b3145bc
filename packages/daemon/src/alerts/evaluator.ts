import type { Logger } from 'pino';
import { type Clock, newId } from '../clock.js';
import type { SqlDialect } from '../db/dialect.js';
import type { Db } from '../db/open.js';
import { logTaskFailure } from '../db/task-failure.js';
import type { OutageLog } from '../db/unavailable.js';
import { claimDue, commitOutcome, type Outcome } from './lease.js';
import { alertPayload } from './message.js';
import { observe, type Observation } from './observe.js';
import { webhookIdsOf } from './repo.js';
import { next, type Step } from './state.js';
import type { AlertRuleRow } from './table.js';

export interface AlertEvaluator {
  /** Evaluates due rules now and every interval after. */
  start(): void;
  stop(): Promise<void>;
  /** One pass at the clock's now: every due rule this daemon can claim; tests drive it with this. */
  runDue(): Promise<number>;
}

export interface EvaluatorOptions {
  readonly db: Db;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly outages: OutageLog;
  /** `--alert-interval`. */
  readonly intervalMs: number;
  /** `--stats-retention`: a window reaching past it counts what is kept, as `GET /stats` does. */
  readonly statsRetentionMs: number | null;
  /** Called after a pass queued messages: the webhook worker sends them. */
  readonly onQueued: () => void;
  /** Who holds a claim; one per daemon. */
  readonly owner?: string;
}

const BATCH = 50;

/** The state and history a step leaves, and the messages it queues (one per webhook of the rule). */
function outcomeOf(
  rule: AlertRuleRow,
  seen: Observation,
  step: Step,
  now: Date,
  intervalMs: number,
  webhookIds: readonly string[],
): Outcome {
  const at = now.toISOString();
  const n = step.next;
  const payload =
    step.notice === null
      ? null
      : alertPayload(rule, seen, {
          state: step.notice === 'resolved' ? 'resolved' : 'firing',
          since: n.firingSince ?? rule.firing_since ?? at,
          at,
          reminder: step.notice === 'reminder',
        });
  const messages = payload ? webhookIds.map((webhookId) => ({ id: newId(), webhookId, payload })) : [];
  return {
    patch: {
      state: n.state,
      state_since: n.stateSince,
      firing_since: n.firingSince,
      clear_since: n.clearSince,
      notified_at: n.notifiedAt,
      last_value: seen.value,
      last_requests: seen.requests,
      evaluated_at: at,
      // A little before the next pass, so a rule is not left for a whole extra interval by timer drift.
      next_eval_at: new Date(now.getTime() + intervalMs - Math.min(1_000, intervalMs / 10)).toISOString(),
    },
    event: step.transition
      ? {
          id: newId(),
          rule_id: rule.id,
          traffic_source_id: rule.traffic_source_id,
          from_state: step.transition.from,
          to_state: step.transition.to,
          created_at: at,
          value: seen.value,
          threshold: seen.threshold,
          window_since: seen.window.since,
          window_until: seen.window.until,
          requests: seen.requests,
          baseline: seen.baseline ? JSON.stringify(seen.baseline) : null,
          notified: messages.length,
        }
      : null,
    messages,
  };
}

export function createAlertEvaluator(options: EvaluatorOptions): AlertEvaluator {
  const { db, clock } = options;
  const owner = options.owner ?? newId();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;

  /** Evaluates one claimed rule; true when it queued a message. */
  async function evaluate(rule: AlertRuleRow): Promise<boolean> {
    const now = clock.now();
    const seen = await observe(options, rule, now);
    const step = next(
      {
        state: rule.state,
        stateSince: rule.state_since,
        firingSince: rule.firing_since,
        clearSince: rule.clear_since,
        notifiedAt: rule.notified_at,
      },
      seen.met,
      now,
      {
        forMs: Number(rule.for_ms),
        windowMs: Number(rule.window_ms),
        repeatMs: rule.repeat_ms === null ? null : Number(rule.repeat_ms),
      },
    );
    const webhookIds = step.notice ? ((await webhookIdsOf(db, [rule.id])).get(rule.id) ?? []) : [];
    const outcome = outcomeOf(rule, seen, step, now, options.intervalMs, webhookIds);
    const committed = await commitOutcome(db, rule, outcome, now.toISOString());
    if (!committed)
      options.logger.info(
        { ruleId: rule.id },
        'alert rule was taken over or deleted during its evaluation; its outcome is dropped',
      );
    if (committed && step.transition)
      options.logger.info(
        { ruleId: rule.id, from: step.transition.from, to: step.transition.to, value: seen.value },
        'alert rule changed state',
      );
    return committed && outcome.messages.length > 0;
  }

  async function runDue(): Promise<number> {
    let total = 0;
    let queued = false;
    for (;;) {
      const rules = await claimDue(options, owner, clock.now(), BATCH);
      for (const rule of rules) if (await evaluate(rule)) queued = true;
      total += rules.length;
      if (rules.length < BATCH) break;
    }
    if (queued) options.onQueued();
    return total;
  }

  const tick = () => {
    if (running) return;
    running = runDue()
      .catch((error: unknown) => logTaskFailure(options, error, 'alert evaluation'))
      .finally(() => {
        running = null;
      });
  };

  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
    runDue,
  };
}
