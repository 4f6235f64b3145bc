import { describe, expect, it } from 'vitest';
import { UsageError } from '../exit-error.js';
import { parseReplayOrigins } from './replay-origins.js';
import { contentSecurityPolicy } from './routes.js';

describe('--ui-replay-origin', () => {
  it('takes origins, repeated or comma-separated, with a port, any port or a wildcard subdomain', () => {
    expect(
      parseReplayOrigins(['http://dev.internal:3000, HTTPS://*.Staging.example', 'http://10.0.0.7:*', 'https://app/']),
    ).toEqual(['http://dev.internal:3000', 'https://*.staging.example', 'http://10.0.0.7:*', 'https://app']);
  });

  it('refuses anything that is not one origin, so nothing else reaches the policy', () => {
    for (const bad of [
      "http://dev:3000; script-src 'unsafe-inline'",
      'http://dev:3000 https://other',
      'dev.internal:3000',
      'ftp://dev',
      'http://dev:3000/path',
      'http://[::1]:3000',
      'http://dev:99999',
      '*',
      "'self'",
    ]) {
      expect(() => parseReplayOrigins([bad]), bad).toThrow(UsageError);
    }
  });
});

describe('the web UI Content-Security-Policy', () => {
  it('lets the page connect to itself, loopback and the listed origins, and keeps every other directive strict', () => {
    const directives = contentSecurityPolicy(['http://dev.internal:3000']).split('; ');
    expect(directives).toEqual([
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self' http://localhost:* http://127.0.0.1:* http://dev.internal:3000",
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ]);
  });
});
