// @vitest-environment happy-dom
import { ApiError, contract, type CoreLog, type Endpoint } from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeClient, type Handler, page, uuid } from './fake-client.js';
import { LinkedLogs } from './LinkedLogs.js';
import { LogsView } from './LogsView.js';

afterEach(cleanup);

const SOURCE = uuid(0);
const log = (i: number, over: Partial<CoreLog> = {}): CoreLog => ({
  id: uuid(1000 + i),
  title: `Log ${i}`,
  description: '',
  source: 'api',
  layer: 'Database',
  stack: '',
  createdAt: new Date(Date.UTC(2026, 10, 26, 10) - i * 1000).toISOString(),
  httpTrafficId: null,
  ...over,
});
/** `count` logs, newest first, served a page at a time as the daemon does. */
const logsOf =
  (all: readonly CoreLog[]): Handler =>
  (input) => {
    const { page: p = 1, limit = 10 } = input.query as { page?: number; limit?: number };
    return { statusCode: 200, ...page(all.slice((p - 1) * limit, p * limit), all.length, p, limit) };
  };
const handlers = (entries: [Endpoint, Handler][]) => new Map<Endpoint, Handler>(entries);

describe('LogsView', () => {
  it('lists the logs newest first as text, and a log naming an entry opens it', async () => {
    const all = [log(1, { title: '<img src=x onerror=alert(1)>', httpTrafficId: uuid(7) }), log(2)];
    const onOpenEntry = vi.fn();
    render(
      <LogsView
        client={fakeClient(handlers([[contract.listCoreLogs, logsOf(all)]]))}
        sourceId={SOURCE}
        logId={undefined}
        onOpenLog={() => {}}
        onOpenEntry={onOpenEntry}
        onError={() => {}}
      />,
    );
    const items = await screen.findAllByRole('listitem');
    expect(items.map((i) => i.querySelector('.log-title')?.textContent)).toEqual([
      '<img src=x onerror=alert(1)>',
      'Log 2',
    ]);
    expect(document.querySelector('.logs img')).toBeNull();
    expect(screen.getByText('2 in all, page 1 of 1')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Entry of <img src=x onerror=alert(1)>' }));
    expect(onOpenEntry).toHaveBeenCalledWith(uuid(7));
  });

  it('opens at the log a link names, reading pages until it is found, with its stack', async () => {
    const all = Array.from({ length: 250 }, (_, i) =>
      log(i, i === 230 ? { stack: 'Error: boom\n    at db.ts:1' } : {}),
    );
    const client = fakeClient(handlers([[contract.listCoreLogs, logsOf(all)]]));
    render(
      <LogsView
        client={client}
        sourceId={SOURCE}
        logId={uuid(1230)}
        onOpenLog={() => {}}
        onOpenEntry={() => {}}
        onError={() => {}}
      />,
    );
    expect(await screen.findByText('250 in all, page 3 of 3')).toBeTruthy();
    expect(screen.getByRole('button', { expanded: true }).textContent).toContain('Log 230');
    expect(document.querySelector('.log-detail pre')?.textContent).toBe('Error: boom\n    at db.ts:1');
    expect(client.calls.map((c) => (c.input.query as { page: number }).page)).toEqual([1, 2, 3]);
  });

  it('says so when the log a link names is not there', async () => {
    render(
      <LogsView
        client={fakeClient(handlers([[contract.listCoreLogs, logsOf([log(1)])]]))}
        sourceId={SOURCE}
        logId={uuid(99)}
        onOpenLog={() => {}}
        onOpenEntry={() => {}}
        onError={() => {}}
      />,
    );
    expect((await screen.findByRole('alert')).textContent).toContain(
      `Core log ${uuid(99)} is not among the newest 5000`,
    );
  });

  it('hands an API error to the shell', async () => {
    const failure = new ApiError(503, {
      statusCode: 503,
      error: 'The database is unavailable',
      code: 'database_unavailable',
    });
    const onError = vi.fn();
    render(
      <LogsView
        client={fakeClient(
          handlers([
            [
              contract.listCoreLogs,
              () => {
                throw failure;
              },
            ],
          ]),
        )}
        sourceId={SOURCE}
        logId={undefined}
        onOpenLog={() => {}}
        onOpenEntry={() => {}}
        onError={onError}
      />,
    );
    await waitFor(() => expect(onError).toHaveBeenCalledWith(failure));
  });
});

describe('LinkedLogs', () => {
  it('lists the logs naming the entry, and each opens the logs view at it', async () => {
    const entry = uuid(7);
    const all = [log(1), log(2, { httpTrafficId: entry, title: 'Deadlock' }), log(3, { httpTrafficId: uuid(8) })];
    const onOpenLog = vi.fn();
    render(
      <LinkedLogs
        client={fakeClient(handlers([[contract.listCoreLogs, logsOf(all)]]))}
        sourceId={SOURCE}
        entryId={entry}
        entryCreatedAt={all[0]?.createdAt ?? ''}
        onOpenLog={onOpenLog}
        onError={() => {}}
      />,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Deadlock' }));
    expect(screen.getAllByRole('listitem')).toHaveLength(1);
    expect(onOpenLog).toHaveBeenCalledWith(uuid(1002));
  });

  it('says when none does', async () => {
    render(
      <LinkedLogs
        client={fakeClient(handlers([[contract.listCoreLogs, logsOf([log(1)])]]))}
        sourceId={SOURCE}
        entryId={uuid(7)}
        entryCreatedAt="2026-11-26T10:00:00.000Z"
        onOpenLog={() => {}}
        onError={() => {}}
      />,
    );
    expect(await screen.findByText('No core log names this entry.')).toBeTruthy();
  });
});
