import { ApiError } from '@tapline/shared';
import { describe, expect, it } from 'vitest';
import { EXIT, toCliError } from './exit-codes.js';

describe('exit codes from daemon errors', () => {
  it('decide by the machine-readable code, not by the message text', () => {
    const reworded = new ApiError(400, { statusCode: 400, error: 'Please send a token', code: 'token_missing' });
    expect(toCliError(reworded).exitCode).toBe(EXIT.AUTH);
    const sameTextOtherCode = new ApiError(400, { statusCode: 400, error: 'Authentication token missing', code: 'validation_failed' });
    expect(toCliError(sameTextOtherCode).exitCode).toBe(EXIT.INVALID);
  });

  it('fall back to the status when something without codes answered', () => {
    expect(toCliError(new ApiError(404, { statusCode: 404, error: 'nope' })).exitCode).toBe(EXIT.NOT_FOUND);
    expect(toCliError(new ApiError(502, { statusCode: 502, error: 'Bad Gateway' })).exitCode).toBe(EXIT.UNEXPECTED);
  });
});
