// @vitest-environment happy-dom
import { contract, type Endpoint } from '@tapline/shared/browser';
import { describe, expect, it } from 'vitest';
import { fakeClient, type Handler, page, uuid } from './components/fake-client.js';
import { askFirstPageEarly, firstPage, settledFirstPage, withOlder } from './first-page.js';

const SOURCE = uuid(1);
const client = () =>
  fakeClient(new Map<Endpoint, Handler>([[contract.listTraffic, () => ({ statusCode: 200, ...page([]) })]]));

describe('the first page asked for early', () => {
  it('is asked for while the token is checked when the address opens a source traffic, and used once', async () => {
    window.history.replaceState(null, '', `/?source=${SOURCE}&q=status%3E%3D500`);
    const c = client();
    void askFirstPageEarly(c);
    expect(c.calls.map((call) => call.input)).toEqual([
      { params: { trafficSourceId: SOURCE }, query: { q: 'status>=500', limit: 100 }, body: undefined },
    ]);
    await firstPage(c, SOURCE, 'status>=500');
    expect(c.calls).toHaveLength(1);
    // Another filter, or the same one again (a new list), asks the daemon afresh.
    await firstPage(c, SOURCE, '');
    await firstPage(c, SOURCE, 'status>=500');
    expect(c.calls).toHaveLength(3);
  });

  it("is handed to the list's first render once it has come, so that the rows are drawn with the shell", async () => {
    window.history.replaceState(null, '', `/?source=${SOURCE}`);
    const c = client();
    const came = askFirstPageEarly(c);
    expect(settledFirstPage(c, SOURCE, '')).toBeUndefined();
    await came;
    const settled = settledFirstPage(c, SOURCE, '');
    expect(settled?.data).toEqual([]);
    // The list's loading then takes the same page, without asking again.
    expect(await firstPage(c, SOURCE, '')).toBe(settled);
    expect(c.calls).toHaveLength(1);
    expect(settledFirstPage(c, SOURCE, 'status>=500')).toBeUndefined();
  });

  it('is not asked for by an address that opens another view', () => {
    window.history.replaceState(null, '', `/?view=routes&source=${SOURCE}`);
    const c = client();
    void askFirstPageEarly(c);
    expect(c.calls).toEqual([]);
  });
});

describe('filling the list in behind its first page', () => {
  const entry = (i: number) => ({ id: uuid(i) });
  const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);
  // Newest first: 9 is the newest entry, 0 the oldest.
  const shown = [9, 8, 7].map(entry);

  it('adds what follows the oldest row shown, once and in order', () => {
    expect(ids(withOlder(shown, [9, 8, 7, 6, 5].map(entry)))).toEqual(ids([9, 8, 7, 6, 5].map(entry)));
  });

  it('leaves entries stored since the first page to the stream, which adds them at the top', () => {
    const streamed = [entry(11), entry(10), ...shown];
    expect(ids(withOlder(streamed, [11, 10, 9, 8, 7, 6].map(entry)))).toEqual(ids([11, 10, 9, 8, 7, 6].map(entry)));
    // The stream has not brought 12 yet: it is not added at the bottom, out of order.
    expect(ids(withOlder(streamed, [12, 11, 10, 9, 8, 7, 6].map(entry)))).toEqual(ids([11, 10, 9, 8, 7, 6].map(entry)));
  });

  it('adds no entry the rows already hold: a slow request stored after the first page, older than its last row', () => {
    // 20 started before 7 but was stored after the first page: the stream brought it to the top.
    const streamed = [entry(20), ...shown];
    expect(ids(withOlder(streamed, [9, 8, 7, 20, 6].map(entry)))).toEqual(ids([20, 9, 8, 7, 6].map(entry)));
  });

  it('adds nothing when the answer no longer reaches the rows shown, or has nothing older', () => {
    expect(withOlder(shown, [15, 14, 13, 12].map(entry))).toBe(shown);
    expect(withOlder(shown, [9, 8, 7].map(entry))).toBe(shown);
    expect(withOlder([], [1, 0].map(entry))).toEqual([]);
  });
});
