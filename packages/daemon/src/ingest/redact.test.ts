import type { JsonValue } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redact.js';

describe('redactor', () => {
  const redactor = createRedactor({ enabled: true, extraKeys: ['x-shop-pin'] });

  it('hides secret keys at any depth, in objects and in arrays, and keeps everything else', () => {
    const body: JsonValue = {
      user: { name: 'ann', password: 'p' },
      items: [{ qty: 1 }, { apiKey: 'k', nested: [{ token: 't' }] }],
      ok: true,
      n: null,
    };
    expect(redactor.values(body)).toEqual({
      user: { name: 'ann', password: REDACTED },
      items: [{ qty: 1 }, { apiKey: REDACTED, nested: [{ token: REDACTED }] }],
      ok: true,
      n: null,
    });
  });

  it('never changes its input, and hands back the same object when there is nothing to hide', () => {
    const body = { user: { password: 'p' }, list: [{ id: 1 }] };
    const copy = structuredClone(body);
    const out = redactor.values(body) as typeof body;
    expect(body).toEqual(copy);
    // The untouched branch is shared, the changed one is new.
    expect(out.list).toBe(body.list);
    expect(out.user).not.toBe(body.user);
    const clean = { a: [1, { b: 'two' }], c: 'three' };
    expect(redactor.values(clean)).toBe(clean);
    const headers = { accept: 'application/json', 'x-request-id': 'r1' };
    expect(redactor.headers(headers)).toBe(headers);
  });

  it('reads each member once on the way to a deep secret, not twice per level', () => {
    // Getters count the reads of the branch that leads to the secret, 20 levels deep: work that
    // doubled per level (redoing a changed member) would read it about a million times.
    let reads = 0;
    let body: JsonValue = { before: 1, password: 'p', after: { n: 2 } };
    for (let i = 0; i < 20; i++) {
      const inner = body;
      body = Object.defineProperty({ before: i }, 'a', { enumerable: true, get: () => (reads++, inner) });
      (body as Record<string, JsonValue>).after = { n: i };
    }
    let out = redactor.values(body) as Record<string, JsonValue>;
    expect(reads).toBeLessThanOrEqual(2 * 20);
    for (let i = 0; i < 20; i++) out = out.a as Record<string, JsonValue>;
    expect(out).toEqual({ before: 1, password: REDACTED, after: { n: 2 } });
  });

  it('keeps a "__proto__" key as data when it copies', () => {
    const body = JSON.parse('{"__proto__": {"polluted": 1}, "secret": "s"}') as JsonValue;
    const out = redactor.values(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":1},"secret":"[REDACTED]"}');
  });

  it('hides secret headers by name in any case, each value of a list, and extra names', () => {
    const headers = {
      Authorization: 'Bearer x',
      'Set-Cookie': ['a=1', 'b=2'],
      'X-Shop-Pin': '1234',
      'x-auth-token': 't',
      accept: '*/*',
    };
    expect(redactor.headers(headers)).toEqual({
      Authorization: REDACTED,
      'Set-Cookie': [REDACTED, REDACTED],
      'X-Shop-Pin': REDACTED,
      'x-auth-token': REDACTED,
      accept: '*/*',
    });
    expect(headers.Authorization).toBe('Bearer x');
  });

  it('redacts a text body: cut JSON, a form, multipart, with the extra names, keeping the marker (issue 24)', () => {
    const marker = '…[truncated by Tapline: 65536 of 70000 bytes shown]';
    expect(
      redactor.values(
        `{"user":"ann","Password":"hunter2","x-shop-pin":"1234","list":[{"token":"t"}],"padding":"pp${marker}`,
      ),
    ).toBe(
      `{"user":"ann","Password":"${REDACTED}","x-shop-pin":"${REDACTED}","list":[{"token":"${REDACTED}"}],"padding":"pp${marker}`,
    );
    expect(redactor.values(`{"a":1,"apiKey":"k-9${marker}`)).toBe(`{"a":1,"apiKey":"${REDACTED}"${marker}`);
    expect(redactor.values('user=ann&password=pw&X-Shop-Pin=1')).toBe(
      `user=ann&password=${REDACTED}&X-Shop-Pin=${REDACTED}`,
    );
    const multipart = '--b\r\nContent-Disposition: form-data; name="secret"\r\n\r\ns3\r\n--b--\r\n';
    expect(redactor.values(multipart)).toBe(
      `--b\r\nContent-Disposition: form-data; name="secret"\r\n\r\n${REDACTED}\r\n--b--\r\n`,
    );
  });

  it('inspects only a body that is text: a string inside JSON is a value, stored as sent', () => {
    const body = { note: 'password=pw', inner: '{"token":"t"}' };
    expect(redactor.values(body)).toBe(body);
    const html = '<p>Forgot your password? Enter your email.</p>';
    expect(redactor.values(html)).toBe(html);
  });

  it('leaves everything as sent when turned off', () => {
    const off = createRedactor({ enabled: false, extraKeys: [] });
    const body = { password: 'p' };
    expect(off.values(body)).toBe(body);
    expect(off.values('{"password":"p"')).toBe('{"password":"p"');
  });
});
