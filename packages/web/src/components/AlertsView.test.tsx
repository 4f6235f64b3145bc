// @vitest-environment happy-dom
import {
  type AlertEvent,
  type AlertRule,
  ApiError,
  contract,
  type Endpoint,
  type Webhook,
} from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AlertsView } from './AlertsView.js';
import { fakeClient, type Handler, invalid, page, uuid } from './fake-client.js';

afterEach(cleanup);

const SOURCE = uuid(0);
const HOOK: Webhook = {
  id: uuid(9),
  type: 'http',
  level: 'fatal',
  value: 'https://hooks.example.com/a',
  trafficSourceId: SOURCE,
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
};
const rule = (i: number, over: Partial<AlertRule> = {}): AlertRule => ({
  id: uuid(i),
  trafficSourceId: SOURCE,
  when: 'p95 > 800ms',
  metric: 'p95',
  operator: '>',
  threshold: 800,
  baselineDays: null,
  route: '/checkout',
  method: 'POST',
  forMs: 0,
  windowMs: 300_000,
  minRequests: 10,
  repeatMs: null,
  webhookIds: [HOOK.id],
  state: 'ok',
  stateSince: '2026-11-26T10:00:00.000Z',
  lastValue: null,
  lastRequests: null,
  evaluatedAt: null,
  createdAt: '2026-11-26T10:00:00.000Z',
  ...over,
});
const event: AlertEvent = {
  id: uuid(300),
  ruleId: uuid(1),
  when: 'p95 > 800ms',
  from: 'pending',
  to: 'firing',
  at: '2026-11-26T10:05:00.000Z',
  value: 1234,
  threshold: 800,
  windowSince: '2026-11-26T10:00:00.000Z',
  windowUntil: '2026-11-26T10:05:00.000Z',
  requests: 40,
  baseline: null,
  notified: 1,
};

function setup(rules: AlertRule[], extra: [Endpoint, Handler][] = []) {
  const client = fakeClient(
    new Map<Endpoint, Handler>([
      [contract.listAlertRules, () => page(rules)],
      [contract.listAlertHistory, () => page([event])],
      [contract.listWebhooks, () => page([HOOK])],
      ...extra,
    ]),
  );
  const onError = vi.fn();
  render(<AlertsView client={client} sourceId={SOURCE} onError={onError} />);
  return { client, onError };
}

describe('AlertsView', () => {
  it('lists the rules with their state, firing in red and pending marked, and the history', async () => {
    setup([
      rule(1, { state: 'firing', lastValue: 1234, lastRequests: 40 }),
      rule(2, { state: 'pending', when: 'error_rate > 5%', metric: 'error_rate', route: null, method: null }),
    ]);
    const rows = within(await screen.findByRole('table', { name: 'Alert rules of this source, with their state' }))
      .getAllByRole('row')
      .slice(1);
    expect(rows.map((r) => r.className)).toEqual(['level-fatal', 'level-warning']);
    expect(rows[0]?.textContent).toContain('p95 > 800msPOST /checkout');
    expect(rows[0]?.textContent).toContain('1234 ms (40 req)');
    expect(rows[1]?.textContent).toContain('every route');
    const history = within(screen.getByRole('table', { name: 'The newest 50 transitions' })).getAllByRole('row')[1];
    expect(history?.textContent).toContain('pending → firing');
  });

  it('adds a rule from the condition text, with the webhooks to notify', async () => {
    const { client } = setup([], [[contract.createAlertRule, () => rule(3, { when: 'error_rate > 5%' })]]);
    await screen.findByText('No alert rule for this source yet.');
    fireEvent.change(screen.getByLabelText('When'), { target: { value: 'error_rate > 5%' } });
    fireEvent.change(screen.getByLabelText('Route'), { target: { value: '/checkout' } });
    fireEvent.change(screen.getByLabelText('For'), { target: { value: '2m' } });
    fireEvent.change(screen.getByLabelText('Fewest requests'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'http https://hooks.example.com/a' }));
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    expect((await screen.findByRole('status')).textContent).toBe('Added the rule error_rate > 5% on POST /checkout.');
    expect(client.calls.find((c) => c.endpoint === contract.createAlertRule)?.input.body).toEqual({
      when: 'error_rate > 5%',
      route: '/checkout',
      for: '2m',
      minRequests: 0,
      webhookIds: [HOOK.id],
    });
  });

  it("shows the API's errors by field: the condition's column, the missing webhook", async () => {
    setup(
      [],
      [
        [
          contract.createAlertRule,
          () => {
            throw invalid([
              { path: 'when', message: 'unknown metric "p96" (column 1)' },
              { path: 'webhookIds', message: 'name at least one webhook to notify' },
            ]);
          },
        ],
      ],
    );
    await screen.findByText('No alert rule for this source yet.');
    fireEvent.change(screen.getByLabelText('When'), { target: { value: 'p96 > 1s' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    expect(await screen.findByText('unknown metric "p96" (column 1)')).toBeTruthy();
    expect(screen.getByLabelText('When').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('name at least one webhook to notify')).toBeTruthy();
  });

  it('tests a rule, and removes it after the confirmation', async () => {
    const rules = [rule(1)];
    setup(rules, [
      [contract.testAlertRule, () => ({ webhookIds: [HOOK.id] })],
      [
        contract.deleteAlertRule,
        () => {
          rules.pop();
          return undefined;
        },
      ],
    ]);
    fireEvent.click(await screen.findByRole('button', { name: 'Test p95 > 800ms' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      'p95 > 800ms: a sample firing message queued for 1 webhook (see their deliveries).',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Remove the rule p95 > 800ms on POST /checkout' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, remove' }));
    expect(await screen.findByText('No alert rule for this source yet.')).toBeTruthy();
  });

  it('hands a failed load to the shell', async () => {
    const failure = new ApiError(404, { statusCode: 404, error: 'Traffic source not found', code: 'source_not_found' });
    const { onError } = setup(
      [],
      [
        [
          contract.listAlertHistory,
          () => {
            throw failure;
          },
        ],
      ],
    );
    await waitFor(() => expect(onError).toHaveBeenCalledWith(failure));
  });
});
