// @vitest-environment happy-dom
import { contract, type Endpoint, type TrafficSource } from '@tapline/shared/browser';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AddSource } from './AddSource.js';
import { fakeClient, type Handler, invalid, uuid } from './fake-client.js';

afterEach(cleanup);

describe('AddSource', () => {
  it('creates the source from name and domain', async () => {
    const created: TrafficSource = {
      id: uuid(1),
      name: 'shop',
      trafficDomain: 'shop.example.com',
      userId: uuid(2),
      createdAt: '2026-11-26T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:00.000Z',
    };
    const client = fakeClient(new Map<Endpoint, Handler>([[contract.createTrafficSource, () => created]]));
    const onAdded = vi.fn();
    render(<AddSource client={client} onAdded={onAdded} onCancel={() => {}} />);
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'shop' } });
    fireEvent.change(screen.getByLabelText('Domain'), { target: { value: 'shop.example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Add source' }));
    await waitFor(() => expect(onAdded).toHaveBeenCalledWith(created));
    expect(client.calls[0]?.input.body).toEqual({ name: 'shop', trafficDomain: 'shop.example.com' });
  });

  it("shows the API's errors by field, and a conflict for the form", async () => {
    let answer: Error = invalid([
      {
        path: 'trafficDomain',
        message: 'trafficDomain must be a domain name such as shop.example.com (no scheme or path)',
      },
    ]);
    const client = fakeClient(
      new Map<Endpoint, Handler>([
        [
          contract.createTrafficSource,
          () => {
            throw answer;
          },
        ],
      ]),
    );
    render(<AddSource client={client} onAdded={() => {}} onCancel={() => {}} />);
    fireEvent.click(screen.getByRole('button', { name: 'Add source' }));
    expect(
      await screen.findByText('trafficDomain must be a domain name such as shop.example.com (no scheme or path)'),
    ).toBeTruthy();
    expect(screen.getByLabelText('Domain').getAttribute('aria-invalid')).toBe('true');
    const { ApiError } = await import('@tapline/shared/browser');
    answer = new ApiError(409, { statusCode: 409, error: 'A source named "shop" exists', code: 'source_name_taken' });
    fireEvent.click(screen.getByRole('button', { name: 'Add source' }));
    expect((await screen.findByRole('alert')).textContent).toBe('A source named "shop" exists');
  });
});
