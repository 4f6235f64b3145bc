import { ApiError, NotTaplineError } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { EXIT, toCliError } from './exit-codes.js';

describe('exit codes from daemon errors', () => {
  it('decide by the machine-readable code, not by the message text', () => {
    const reworded = new ApiError(400, { statusCode: 400, error: 'Please send a token', code: 'token_missing' });
    expect(toCliError(reworded).exitCode).toBe(EXIT.AUTH);
    const sameTextOtherCode = new ApiError(400, {
      statusCode: 400,
      error: 'Authentication token missing',
      code: 'validation_failed',
    });
    expect(toCliError(sameTextOtherCode).exitCode).toBe(EXIT.INVALID);
  });

  it('fall back to the status when something without codes answered', () => {
    expect(toCliError(new ApiError(404, { statusCode: 404, error: 'nope' })).exitCode).toBe(EXIT.NOT_FOUND);
    expect(toCliError(new ApiError(502, { statusCode: 502, error: 'Bad Gateway' })).exitCode).toBe(EXIT.UNEXPECTED);
  });

  it('an expired token is told by the code, or by its own past expiry when an older daemon answers', () => {
    const jwt = (exp: number) => `e30.${Buffer.from(JSON.stringify({ jti: 'j', exp })).toString('base64url')}.c2ln`;
    const used = {
      url: 'http://d',
      token: jwt(Date.parse('2026-11-20T10:00:00Z') / 1000),
      tokenFrom: '--token',
      home: '/h',
      debug: false,
    };
    const expired = toCliError(
      new ApiError(401, { statusCode: 401, error: 'Token expired', code: 'token_expired' }),
      used,
    );
    expect([expired.exitCode, expired.message]).toEqual([
      EXIT.AUTH,
      'the token from --token expired at 2026-11-20 10:00 UTC',
    ]);
    expect(
      toCliError(new ApiError(401, { statusCode: 401, error: 'Invalid token', code: 'token_invalid' }), used).message,
    ).toBe(expired.message);
    const current = { ...used, token: jwt(Date.now() / 1000 + 3600) };
    expect(
      toCliError(new ApiError(401, { statusCode: 401, error: 'Invalid token', code: 'token_invalid' }), current)
        .message,
    ).toBe('the daemon refused the token (Invalid token)');
  });

  it('another server at the URL is exit 3, what it answered only with --debug', () => {
    const foreign = new NotTaplineError('http://x', 'GET /healthz answered 200 with HTML');
    expect(toCliError(foreign)).toMatchObject({
      exitCode: EXIT.UNREACHABLE,
      message: 'http://x: not a Tapline daemon',
      hint: undefined,
    });
    expect(toCliError(foreign, { url: 'http://x', token: null, tokenFrom: null, home: '/h', debug: true }).hint).toBe(
      'GET /healthz answered 200 with HTML',
    );
  });
});
