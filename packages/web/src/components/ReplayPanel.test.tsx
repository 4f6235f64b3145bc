// @vitest-environment happy-dom
import type { HttpTrafficRecord } from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReplayOutcome } from '../replay/send.js';
import { sendFromBrowser } from '../replay/send.js';
import { uuid } from './fake-client.js';
import { ReplayPanel } from './ReplayPanel.js';

afterEach(cleanup);

const SOURCE = uuid(0);
const PAGE = 'http://127.0.0.1:7468';
const record: HttpTrafficRecord = {
  id: uuid(7),
  status: 503,
  method: 'POST',
  level: 'FATAL',
  elapsedTime: 41,
  createdAt: '2026-11-26T10:00:00.000Z',
  domain: 'shop.example.com',
  pathname: '/orders',
  protocol: 'HTTPS',
  trafficSourceId: SOURCE,
  request: {
    headers: {
      host: 'shop.example.com',
      cookie: 'sid=[REDACTED]',
      authorization: '[REDACTED]',
      'x-tenant': 'acme',
      'content-type': 'application/json',
    },
    queryParams: { page: '2' },
    body: { sku: 'A-1' },
  },
  response: { headers: { 'content-type': 'application/json' }, body: { error: 'down' } },
};

function panel(outcome: ReplayOutcome) {
  const send = vi.fn<typeof sendFromBrowser>(() => Promise.resolve(outcome));
  render(<ReplayPanel record={record} sourceId={SOURCE} pageOrigin={PAGE} send={send} />);
  return send;
}
const field = (name: string) => screen.getByRole<HTMLInputElement>('textbox', { name });
const type = (name: string, value: string) => fireEvent.change(field(name), { target: { value } });

describe('ReplayPanel', () => {
  it('sends the edited request, never a redacted value nor a header browsers refuse, and shows both answers and their diff', async () => {
    const send = panel({
      kind: 'answer',
      answer: {
        status: 201,
        statusText: 'Created',
        headers: { 'content-type': 'application/json' },
        body: { tenant: 'globex' },
        elapsedTime: 3.2,
      },
    });
    expect(field('URL').value).toBe('https://shop.example.com/orders?page=2');
    expect(screen.getByText(/Redacted when recorded: header authorization\./)).toBeTruthy();
    expect(screen.getByLabelText('Headers not sent').textContent).toContain('Not sent by the browser: host, cookie.');

    // `[REDACTED]` is never sent: the user types the value first.
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(screen.getByRole('alert').textContent).toContain('type the real value in header authorization');
    expect(send).not.toHaveBeenCalled();

    type('URL', 'http://localhost:3000/orders?page=2');
    type('Header 3 value', 'Bearer dev-token');
    type('Header 4 value', 'globex');
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(send).toHaveBeenCalledTimes(1);
    const [url, init] = send.mock.calls[0] ?? [];
    expect(String(url)).toBe('http://localhost:3000/orders?page=2');
    expect(init?.method).toBe('POST');
    expect(init?.credentials).toBe('omit');
    expect(init?.body).toBe('{\n  "sku": "A-1"\n}');
    expect(init?.headers).toEqual([
      ['authorization', 'Bearer dev-token'],
      ['x-tenant', 'globex'],
      ['content-type', 'application/json'],
    ]);

    const replayed = await screen.findByRole('region', { name: 'Replayed answer' });
    expect(within(replayed).getByText('"globex"')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('Replayed: 201 Created in 3.2ms (3.2 ms)');
    expect(screen.getByRole('region', { name: 'Recorded answer' }).textContent).toContain('"down"');
    const diff = screen.getByRole('table', { name: /differences: recorded → replayed/ });
    const rows = within(diff)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toContain('status503201');
    expect(rows).toContain('request.headers["x-tenant"]"acme""globex"');
    expect(rows).toContain('response.body.tenant—"globex"');
    // What the browser did not send shows as such, not as sent.
    expect(rows).toContain('request.headers.cookie"sid=[REDACTED]"—');
  });

  it('says a target the app does not open to this page must answer CORS, with the shell command that needs none', async () => {
    panel({ kind: 'unreachable', origin: 'http://localhost:3000', reason: 'Failed to fetch' });
    type('URL', 'http://localhost:3000/orders');
    type('Header 3 value', 'Bearer dev');
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(`It must send Access-Control-Allow-Origin: ${PAGE}`);
    expect(within(alert).getByLabelText('Replay command').textContent).toBe(
      `tapline traffic replay ${SOURCE} ${record.id} --to http://localhost:3000 --set-header 'authorization: Bearer dev'`,
    );
  });

  it('says which flag lets the page reach an origin its policy refuses', async () => {
    panel({ kind: 'csp', origin: 'http://dev.internal:3000' });
    type('URL', 'http://dev.internal:3000/orders');
    type('Header 3 value', 'Bearer dev');
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'taplined --ui-replay-origin http://dev.internal:3000',
    );
  });
});

describe('sendFromBrowser', () => {
  const events = () => new EventTarget();
  const refused = () => Promise.reject(new TypeError('Failed to fetch'));

  it('tells a policy refusal (the violation event) from an app that does not answer CORS', async () => {
    const target = events();
    const blocked = vi.fn<typeof fetch>(() => {
      target.dispatchEvent(Object.assign(new Event('securitypolicyviolation'), { blockedURI: 'http://dev:3000/x' }));
      return refused();
    });
    const url = new URL('http://dev:3000/x');
    expect(await sendFromBrowser(url, {}, { fetch: blocked, events: target, now: () => 0 })).toEqual({
      kind: 'csp',
      origin: 'http://dev:3000',
    });
    expect(await sendFromBrowser(url, {}, { fetch: vi.fn(refused), events: events(), now: () => 0 })).toEqual({
      kind: 'unreachable',
      origin: 'http://dev:3000',
      reason: 'Failed to fetch',
    });
  });
});
