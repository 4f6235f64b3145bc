import { describe, expect, it } from 'vitest';
import { parseUrlState, urlOf } from './url-state.js';

describe('the address as state', () => {
  it('keeps the new views, the open core log and the webhook shown, so a pasted link opens them', () => {
    const logs = parseUrlState('?view=logs&source=s1&log=l1');
    expect(logs).toMatchObject({ view: 'logs', source: 's1', log: 'l1', webhook: undefined });
    expect(urlOf(logs)).toBe('/?view=logs&source=s1&log=l1');
    const hooks = parseUrlState('?view=webhooks&source=s1&webhook=w1');
    expect(urlOf(hooks)).toBe('/?view=webhooks&source=s1&webhook=w1');
    expect(parseUrlState('?view=alerts').view).toBe('alerts');
  });

  it('opens the traffic view for a view it does not know', () => {
    expect(parseUrlState('?view=settings&log=').view).toBe('traffic');
    expect(parseUrlState('?view=settings&log=').log).toBeUndefined();
  });
});
