// @vitest-environment happy-dom
import { contract, type Endpoint } from '@tapline/shared/browser';
import { describe, expect, it } from 'vitest';
import { fakeClient, type Handler, page, uuid } from './components/fake-client.js';
import { askFirstPageEarly, firstPage } from './first-page.js';

const SOURCE = uuid(1);
const client = () =>
  fakeClient(new Map<Endpoint, Handler>([[contract.listTraffic, () => ({ statusCode: 200, ...page([]) })]]));

describe('the first page asked for early', () => {
  it('is asked for while the token is checked when the address opens a source traffic, and used once', async () => {
    window.history.replaceState(null, '', `/?source=${SOURCE}&q=status%3E%3D500`);
    const c = client();
    askFirstPageEarly(c);
    expect(c.calls.map((call) => call.input)).toEqual([
      { params: { trafficSourceId: SOURCE }, query: { q: 'status>=500', limit: 1000 }, body: undefined },
    ]);
    await firstPage(c, SOURCE, 'status>=500');
    expect(c.calls).toHaveLength(1);
    // Another filter, or the same one again (a new list), asks the daemon afresh.
    await firstPage(c, SOURCE, '');
    await firstPage(c, SOURCE, 'status>=500');
    expect(c.calls).toHaveLength(3);
  });

  it('is not asked for by an address that opens another view', () => {
    window.history.replaceState(null, '', `/?view=routes&source=${SOURCE}`);
    const c = client();
    askFirstPageEarly(c);
    expect(c.calls).toEqual([]);
  });
});
