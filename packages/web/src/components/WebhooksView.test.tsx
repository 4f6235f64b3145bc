// @vitest-environment happy-dom
import { ApiError, contract, type Endpoint, type Webhook, type WebhookAttempt } from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeClient, type Handler, invalid, page, uuid } from './fake-client.js';
import { WebhooksView } from './WebhooksView.js';

afterEach(cleanup);

const SOURCE = uuid(0);
const hook = (i: number, over: Partial<Webhook> = {}): Webhook => ({
  id: uuid(i),
  type: 'http',
  level: 'fatal',
  value: `https://hooks.example.com/${i}`,
  trafficSourceId: SOURCE,
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
  ...over,
});
const attempt = (over: Partial<WebhookAttempt> = {}): WebhookAttempt => ({
  id: uuid(500),
  deliveryId: uuid(501),
  kind: 'test',
  httpTrafficId: null,
  attempt: 1,
  outcome: 'delivered',
  statusCode: 204,
  error: null,
  durationMs: 12,
  nextAttemptAt: null,
  createdAt: '2026-11-26T10:01:00.000Z',
  ...over,
});

function setup(extra: [Endpoint, Handler][] = [], hooks: Webhook[] = [hook(1)], webhookId?: string) {
  const client = fakeClient(new Map<Endpoint, Handler>([[contract.listWebhooks, () => page(hooks)], ...extra]));
  const onShowDeliveries = vi.fn();
  const onError = vi.fn();
  render(
    <WebhooksView
      client={client}
      sourceId={SOURCE}
      webhookId={webhookId}
      onShowDeliveries={onShowDeliveries}
      onError={onError}
    />,
  );
  return { client, onShowDeliveries, onError };
}

describe('WebhooksView', () => {
  it('lists the webhooks, and adds one with the fields the API takes, showing its secret once', async () => {
    const hooks = [hook(1)];
    const { client } = setup(
      [
        [
          contract.createWebhook,
          (input) => {
            const added = { ...hook(2), ...(input.body as Partial<Webhook>) };
            hooks.unshift(added);
            return { ...added, secret: 'whsec_abc' };
          },
        ],
      ],
      hooks,
    );
    expect(await screen.findByRole('rowheader', { name: 'https://hooks.example.com/1' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Type'), { target: { value: 'slack' } });
    fireEvent.change(screen.getByLabelText('Level'), { target: { value: 'warning' } });
    fireEvent.change(screen.getByLabelText('URL'), { target: { value: 'https://hooks.slack.com/services/T0/B0/X' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add webhook' }));
    expect(await screen.findByRole('rowheader', { name: 'https://hooks.slack.com/services/T0/B0/X' })).toBeTruthy();
    expect(client.calls.find((c) => c.endpoint === contract.createWebhook)?.input.body).toEqual({
      type: 'slack',
      level: 'warning',
      value: 'https://hooks.slack.com/services/T0/B0/X',
    });
    expect(screen.getByText('whsec_abc')).toBeTruthy();
  });

  it("shows the API's validation errors beside their fields", async () => {
    setup([
      [
        contract.createWebhook,
        () => {
          throw invalid([{ path: 'value', message: 'a slack webhook must be https://hooks.slack.com/…' }]);
        },
      ],
    ]);
    await screen.findByRole('table');
    fireEvent.click(screen.getByRole('button', { name: 'Add webhook' }));
    await waitFor(() => expect(screen.getByLabelText('URL').getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById('webhook-value-error')?.textContent).toBe(
      'a slack webhook must be https://hooks.slack.com/…',
    );
    expect(screen.getByLabelText('URL').getAttribute('aria-describedby')).toContain('webhook-value-error');
  });

  it('sends a test and says whether it was delivered', async () => {
    setup([
      [
        contract.testWebhook,
        () => ({
          delivered: false,
          attempt: attempt({ outcome: 'failed', statusCode: 500, error: 'receiver answered 500' }),
        }),
      ],
    ]);
    fireEvent.click(await screen.findByRole('button', { name: 'Test https://hooks.example.com/1' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Test not delivered to https://hooks.example.com/1: HTTP 500, receiver answered 500.',
    );
  });

  it("shows one webhook's deliveries: outcome, status, attempt", async () => {
    const { onShowDeliveries } = setup(
      [
        [
          contract.listWebhookDeliveries,
          () =>
            page([
              attempt({ outcome: 'retrying', statusCode: null, error: 'ECONNREFUSED', attempt: 2, kind: 'traffic' }),
            ]),
        ],
      ],
      [hook(1)],
      uuid(1),
    );
    const table = await screen.findByRole('table', { name: 'The newest 100 attempts' });
    const cells = [...table.querySelectorAll('tbody td')].map((td) => td.textContent);
    expect(cells.slice(1)).toEqual(['traffic', 'retrying', '–', '2', '12 ms', 'ECONNREFUSED']);
    fireEvent.click(screen.getByRole('button', { name: 'Deliveries of https://hooks.example.com/1' }));
    expect(onShowDeliveries).toHaveBeenCalledWith(undefined);
  });

  it('deletes only after the confirmation, and an API error is shown', async () => {
    const failure = new ApiError(403, {
      statusCode: 403,
      error: 'This token may not change webhooks',
      code: 'forbidden',
    });
    const { client } = setup([
      [
        contract.deleteWebhook,
        () => {
          throw failure;
        },
      ],
    ]);
    fireEvent.click(await screen.findByRole('button', { name: 'Delete the webhook to https://hooks.example.com/1' }));
    expect(client.calls.some((c) => c.endpoint === contract.deleteWebhook)).toBe(false);
    expect(document.activeElement?.textContent).toBe('Cancel');
    fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    expect((await screen.findByRole('alert')).textContent).toBe('This token may not change webhooks');
  });
});
