// @vitest-environment happy-dom
import { contract } from '@tapline/shared/browser';
import { beforeEach, describe, expect, it } from 'vitest';
import { page, uuid } from './components/fake-client.js';
import { startEarly, startToken } from './early.js';
import { listFirstPage } from './first-page.js';
import { clientFor, openSession } from './session.js';

const SOURCE = uuid(1);
const ME = { id: uuid(2), email: 'ada@example.com', name: 'Ada', tokenId: uuid(3), scope: 'full', sourceId: null };

/** A network that answers the token check and any traffic page, and notes what was sent with which token. */
function network() {
  const sent: string[] = [];
  const send: typeof fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    sent.push(
      `${init?.method ?? 'GET'} ${url.pathname}${url.search} ${new Headers(init?.headers).get('authorization')}`,
    );
    const body = url.pathname === '/auth/me' ? ME : page([]);
    return Promise.resolve(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));
  };
  return { sent, send };
}

beforeEach(() => window.sessionStorage.clear());

describe("the page's first requests, sent before React and the contract are loaded", () => {
  it('are the ones the typed client then makes, each answered once by the request already sent', async () => {
    window.history.replaceState(null, '', `/?source=${SOURCE}&q=status%3E%3D500#token=tpl_secret`);
    const net = network();
    startEarly(net.send);
    // The fragment's token is taken out of the address at once.
    expect(window.location.hash).toBe('');
    expect(startToken()).toBe('tpl_secret');
    // Kept in the tab at once (a reload finds it); the token check removes a refused one (App.tsx).
    expect(window.sessionStorage.getItem('tapline.token')).toBe('tpl_secret');
    const early = [
      'GET /auth/me Bearer tpl_secret',
      `GET /http-traffic/${SOURCE}?q=status%3E%3D500&limit=100 Bearer tpl_secret`,
    ];
    expect(net.sent).toEqual(early);

    const client = clientFor('tpl_secret');
    const session = await openSession('tpl_secret', client);
    expect(session.me.email).toBe('ada@example.com');
    expect((await listFirstPage(client, SOURCE, 'status>=500')).data).toEqual([]);
    expect(net.sent).toEqual(early);
    // Asked again (a reload of the list, the next token check), they go to the daemon.
    await listFirstPage(client, SOURCE, 'status>=500');
    await client.call(contract.me);
    expect(net.sent).toHaveLength(4);
  });

  it('ask for no traffic when the address opens another view, and nothing without a token', () => {
    window.history.replaceState(null, '', `/?view=routes&source=${SOURCE}#token=tpl_secret`);
    const net = network();
    startEarly(net.send);
    expect(net.sent).toEqual(['GET /auth/me Bearer tpl_secret']);

    window.sessionStorage.clear();
    window.history.replaceState(null, '', `/?source=${SOURCE}`);
    const none = network();
    startEarly(none.send);
    expect(startToken()).toBeUndefined();
    expect(none.sent).toEqual([]);
  });

  it('are never handed to a client with another token', async () => {
    window.history.replaceState(null, '', `/?source=${SOURCE}#token=tpl_first`);
    const net = network();
    startEarly(net.send);
    await clientFor('tpl_other').call(contract.me);
    expect(net.sent).toEqual([
      'GET /auth/me Bearer tpl_first',
      `GET /http-traffic/${SOURCE}?limit=100 Bearer tpl_first`,
      'GET /auth/me Bearer tpl_other',
    ]);
  });
});
