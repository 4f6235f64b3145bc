// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { checkStart } from './components/App.js';
import { page, uuid } from './components/fake-client.js';
import { startEarly } from './early.js';
import { clientFor } from './session.js';
import { settledFirstPage } from './first-page.js';

const SOURCE = uuid(1);
const ME = { id: uuid(2), email: 'ada@example.com', name: 'Ada', tokenId: uuid(3), scope: 'full', sourceId: null };
const json = (body: unknown, status = 200) =>
  Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }));

/** A daemon that answers the token check with `me`, and the traffic list as `list` says. */
const daemon =
  (me: () => Promise<Response>, list: () => Promise<Response>): typeof fetch =>
  (input) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return url.pathname === '/auth/me' ? me() : list();
  };

beforeEach(() => {
  window.sessionStorage.clear();
  window.history.replaceState(null, '', `/?source=${SOURCE}#token=tpl_secret`);
});

describe("the page's start", () => {
  it('is signed in with the first page at hand when both come in time', async () => {
    startEarly(
      daemon(
        () => json(ME),
        () => json(page([])),
      ),
    );
    const phase = await checkStart();
    expect(phase.kind).toBe('signed-in');
    if (phase.kind !== 'signed-in') return;
    expect(phase.session.me.email).toBe('ada@example.com');
    expect(settledFirstPage(phase.session.client, SOURCE, '')?.data).toEqual([]);
  });

  it('is not held by a first page that takes long (a costly filter in a shared link)', async () => {
    startEarly(
      daemon(
        () => json(ME),
        () => new Promise<Response>(() => undefined),
      ),
    );
    const started = Date.now();
    const phase = await checkStart();
    expect(phase.kind).toBe('signed-in');
    expect(Date.now() - started).toBeLessThan(5_000);
    if (phase.kind === 'signed-in') expect(settledFirstPage(phase.session.client, SOURCE, '')).toBeUndefined();
  });

  it('is the sign-in page, saying why, for a token the daemon refuses, which the tab then forgets', async () => {
    const refused = { statusCode: 401, error: 'Unauthorized', code: 'token_revoked', message: 'the token was revoked' };
    startEarly(
      daemon(
        () => json(refused, 401),
        () => json(refused, 401),
      ),
    );
    expect(window.sessionStorage.getItem('tapline.token')).toBe('tpl_secret');
    const phase = await checkStart();
    expect(phase).toEqual({
      kind: 'signed-out',
      reason: 'Your token was revoked or is no longer valid. Sign in again.',
    });
    expect(window.sessionStorage.getItem('tapline.token')).toBeNull();
    // A client of another token is not handed the page asked for at start.
    expect(settledFirstPage(clientFor('other'), SOURCE, '')).toBeUndefined();
  });
});
