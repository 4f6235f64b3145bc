import { gzipSync } from 'node:zlib';
import { ErrorBody } from '@tapline/shared';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSource,
  MISSING_ID,
  raw,
  rawJson,
  composeBody,
  type Harness,
  startHarness,
} from '@tapline/testkit/daemon';

describe('error bodies and the body reader', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function setUp(options: Parameters<typeof startHarness>[0] = {}) {
    h = await startHarness(options);
    const user = await h.user();
    const source = await createSource(user.client);
    return { h, user, source };
  }

  it('answers 415 to a body that is not JSON, on POST and PATCH', async () => {
    const { h, user, source } = await setUp();
    const post = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: 'name=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(post.status).toBe(415);
    expect(post.json).toEqual({
      statusCode: 415,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
    const patch = await raw(h, 'PATCH', `/traffic-source/${source.id}`, {
      token: user.token,
      body: '{"name":"b"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(patch.status).toBe(415);
    const none = await raw(h, 'POST', `/http-traffic-record/${source.id}`, { token: user.token, body: '{}' });
    expect(none.status).toBe(415);
  });

  it('accepts JSON media types with parameters and +json suffixes', async () => {
    const { h, user } = await setUp();
    const body = JSON.stringify({ name: 'x', trafficDomain: 'x.example.com' });
    const plain = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(plain.status).toBe(201);
    const suffixed = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: body.replace('"x"', '"y"'),
      headers: { 'content-type': 'application/vnd.api+json' },
    });
    expect(suffixed.status).toBe(201);
  });

  it('answers 415 to a JSON body in a charset other than UTF-8', async () => {
    const { h, user } = await setUp();
    const answer = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: '{}',
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect(answer.status).toBe(415);
  });

  it('lets a POST without a body through when the endpoint takes none', async () => {
    const { h, user, source } = await setUp();
    const deleted = await raw(h, 'DELETE', `/traffic-source/${source.id}`, { token: user.token });
    expect(deleted.status).toBe(204);
  });

  it('answers 413 past --max-body, and accepts a body just under it', async () => {
    const { h, user, source } = await setUp({ config: { maxBody: 2048 } });
    const big = composeBody(source.id, { responseBody: { text: 'x'.repeat(4096) } });
    const over = await rawJson(h, 'POST', `/http-traffic-record/${source.id}`, user.token, big);
    expect(over.status).toBe(413);
    expect(over.json).toEqual({ statusCode: 413, error: 'Request body too large', code: 'body_too_large' });
    const under = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${source.id}`,
      user.token,
      composeBody(source.id, { responseBody: { text: 'x'.repeat(1000) } }),
    );
    expect(under.status).toBe(201);
  });

  it('has a default limit of 1 MiB', async () => {
    const { h, user, source } = await setUp();
    const over = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${source.id}`,
      user.token,
      composeBody(source.id, { responseBody: { text: 'x'.repeat(1024 * 1024) } }),
    );
    expect(over.status).toBe(413);
    const under = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${source.id}`,
      user.token,
      composeBody(source.id, { responseBody: { text: 'x'.repeat(1000 * 1000) } }),
    );
    expect(under.status).toBe(201);
  });

  it('gives every error body a code from the contract', async () => {
    const { h, user, source } = await setUp();
    const answers = [
      await raw(h, 'GET', '/no/such/route'),
      await raw(h, 'GET', `/http-traffic/${source.id}`),
      await raw(h, 'GET', `/http-traffic/${source.id}`, { token: 'x.y.z' }),
      await raw(h, 'GET', `/http-traffic/${MISSING_ID}`, { token: user.token }),
      await raw(h, 'GET', '/http-traffic/not-a-uuid', { token: user.token }),
      await raw(h, 'POST', `/http-traffic-record/${source.id}`, {
        token: user.token,
        body: '{',
        headers: { 'content-type': 'application/json' },
      }),
    ];
    expect(answers.map((a) => ErrorBody.parse(a.json).code)).toEqual([
      'route_not_found',
      'token_missing',
      'token_invalid',
      'source_not_found',
      'validation_failed',
      'malformed_json',
    ]);
  });

  it('answers 400 to malformed JSON', async () => {
    const { h, user, source } = await setUp();
    for (const body of ['{', '{"name": }', "{'name': 'a'}", 'undefined', '{"a":1}}']) {
      const answer = await raw(h, 'POST', `/http-traffic-record/${source.id}`, {
        token: user.token,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status, body).toBe(400);
      expect(answer.json, body).toEqual({
        statusCode: 400,
        error: 'Malformed JSON in request body',
        code: 'malformed_json',
      });
    }
  });

  it('answers 400, not 500, to a compressed body that does not decompress', async () => {
    const { h, user } = await setUp();
    const broken = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: 'this is not gzip',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toMatchObject({ statusCode: 400 });
    const good = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: gzipSync(JSON.stringify({ name: 'zipped', trafficDomain: 'z.example.com' })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(good.status).toBe(201);
    const unknown = await raw(h, 'POST', '/traffic-source', {
      token: user.token,
      body: '{}',
      headers: { 'content-type': 'application/json', 'content-encoding': 'xz' },
    });
    expect(unknown.status).toBe(415);
  });

  it('answers 400, not 500, to JSON nested too deeply to handle', async () => {
    const { h, user, source } = await setUp();
    for (const nested of ['['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)]) {
      const body = JSON.stringify(composeBody(source.id, { requestBody: 'HERE' })).replace('"HERE"', nested);
      const answer = await raw(h, 'POST', `/http-traffic-record/${source.id}`, {
        token: user.token,
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ statusCode: 400 });
    }
    // The limit is 256 levels counted from the body itself, which is level 1: requestBody sits at
    // level 2, so 255 nested objects in it reach level 256 and one more is refused.
    const nestedIn = (levels: number) =>
      JSON.stringify(composeBody(source.id, { requestBody: 'HERE' })).replace(
        '"HERE"',
        '{"a":'.repeat(levels) + '1' + '}'.repeat(levels),
      );
    const post = (body: string) =>
      raw(h, 'POST', `/http-traffic-record/${source.id}`, {
        token: user.token,
        body,
        headers: { 'content-type': 'application/json' },
      });
    expect((await post(nestedIn(50))).status).toBe(201);
    expect((await post(nestedIn(255))).status).toBe(201);
    const over = await post(nestedIn(256));
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({ error: 'JSON in the request body is nested deeper than 256 levels' });
  });

  it('answers 400, not 500, to a path with broken percent-encoding', async () => {
    const { h, user } = await setUp();
    for (const path of ['/core-log/%zz', '/http-traffic/%E0%A4%A', '/webhooks/%', '/traffic-source/%C0%AF']) {
      const answer = await raw(h, 'GET', path, { token: user.token });
      expect(answer.status, path).toBe(400);
      expect(answer.json, path).toMatchObject({ statusCode: 400 });
    }
  });

  it('answers an unknown route with 404 Not Found, with or without a token', async () => {
    const { h, user } = await setUp();
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/'],
      ['PUT', '/traffic-sources'],
      ['GET', `/traffic-source/${MISSING_ID}/extra/more`],
    ] as const) {
      for (const token of [user.token, undefined]) {
        const answer = await raw(h, method, path, token ? { token } : {});
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.json).toEqual({ statusCode: 404, error: 'Not Found', code: 'route_not_found' });
      }
    }
  });

  it('answers an unexpected failure with exactly {statusCode: 500, error: "Internal Server Error", code: "internal"}', async () => {
    const { h, user, source } = await setUp({
      ingestHooks: [
        async () => {
          throw new Error('SQLITE_ERROR: near "SELECT * FROM users": syntax error');
        },
      ],
    });
    const answer = await rawJson(h, 'POST', `/http-traffic-record/${source.id}`, user.token, composeBody(source.id));
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'internal' });
    expect(answer.text).not.toMatch(/SQLITE|SELECT|at .*\.ts/);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('shows no SQL when the database itself fails', async () => {
    const { h, user, source } = await setUp();
    // Renamed rather than dropped: PostgreSQL refuses to drop a table other tables' keys point to.
    await sql`alter table webhooks rename to webhooks_gone`.execute(h.deps.db);
    const answer = await raw(h, 'GET', `/webhooks/${source.id}`, { token: user.token });
    expect(answer.status).toBe(500);
    expect(answer.json).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'internal' });
  });

  it('adds issues with dotted paths to validation errors', async () => {
    const { h, user, source } = await setUp();
    const answer = await rawJson(
      h,
      'POST',
      `/http-traffic-record/${source.id}`,
      user.token,
      composeBody(source.id, { requestHeaders: { accept: { nested: true } }, status: 'x' }),
    );
    expect(answer.status).toBe(400);
    const body = answer.json as { statusCode: number; error: string; issues: { path: string; message: string }[] };
    expect(body.statusCode).toBe(400);
    expect(typeof body.error).toBe('string');
    expect(body.issues.map((i) => i.path).sort()).toEqual(['requestHeaders.accept', 'status']);
  });
});
