// @vitest-environment happy-dom
import type { HttpTraffic } from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TrafficList } from './TrafficList.js';

afterEach(cleanup);

const ids = (i: number) => `01a1fc99-9069-75ce-b9c9-${String(i).padStart(12, '0')}`;
function entry(i: number, status = 200): HttpTraffic {
  return {
    id: ids(i),
    status,
    method: 'GET',
    level: status >= 500 ? 'FATAL' : status >= 400 ? 'WARNING' : 'INFO',
    elapsedTime: 12,
    trafficSourceId: ids(0),
    domainId: ids(0),
    pathnameId: ids(0),
    requestId: ids(0),
    responseId: ids(0),
    createdAt: '2026-11-26T10:00:00.000Z',
    domain: 'shop.example.com',
    pathname: `/items/${i}`,
    protocol: 'HTTPS',
  };
}

describe('TrafficList', () => {
  it('renders only the rows in view of 100,000 loaded ones', () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => entry(i));
    render(<TrafficList rows={rows} selected={0} onSelect={() => {}} onOpen={() => {}} />);
    const shown = screen.getAllByRole('option');
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length).toBeLessThan(100);
    expect(screen.getByRole('listbox').getAttribute('aria-label')).toBe('Traffic, 100000 entries');
  });

  it('colours a row by level and status class, and shows recorded markup as text', () => {
    const rows = [{ ...entry(1, 503), pathname: '/<img src=x onerror=alert(1)>' }];
    render(<TrafficList rows={rows} selected={0} onSelect={() => {}} onOpen={() => {}} />);
    const row = screen.getByRole('option');
    expect(row.className).toContain('level-fatal');
    expect(row.className).toContain('status-5xx');
    expect(row.textContent).toContain('shop.example.com/<img src=x onerror=alert(1)>');
    expect(row.querySelector('img')).toBeNull();
  });

  it('moves with j and k within the list and opens the selected entry with Enter', () => {
    const rows = [entry(1), entry(2), entry(3)];
    const onSelect = vi.fn();
    const onOpen = vi.fn();
    render(<TrafficList rows={rows} selected={1} onSelect={onSelect} onOpen={onOpen} />);
    const list = screen.getByRole('listbox');
    fireEvent.keyDown(list, { key: 'j' });
    fireEvent.keyDown(list, { key: 'k' });
    fireEvent.keyDown(list, { key: 'End' });
    fireEvent.keyDown(list, { key: 'Enter' });
    expect(onSelect.mock.calls).toEqual([[2], [0], [2]]);
    expect(onOpen).toHaveBeenCalledWith(rows[1]);
    expect(list.getAttribute('aria-activedescendant')).toBe(`entry-${ids(2)}`);
  });
});
