import { randomBytes } from 'node:crypto';
import { composeBody } from '@tapline/testkit';

/**
 * Distinct secret values, each named by where it was planted, so that a leak says which one.
 * Every value is unique and random: finding it anywhere can only mean it was copied there.
 */
export class Secrets {
  readonly planted = new Map<string, string>();

  /** `bytes` of randomness: longer values can be watched by a part of them (a value cut in the middle). */
  make(label: string, bytes = 10): string {
    const value = `tlsecret${randomBytes(bytes).toString('hex')}`;
    this.planted.set(label, value);
    return value;
  }

  /** A value planted elsewhere (a token the daemon issued, the signing key), watched from now on. */
  watch(label: string, value: string): string {
    this.planted.set(label, value);
    return value;
  }
}

/** The key the daemon is told to redact with `--redact-keys`, beside its built-in list. */
export const EXTRA_REDACT_KEY = 'x-internal-key';

/**
 * One record with a secret under every kind of name redaction knows: credential headers (any
 * case), secret-looking query and body keys at any depth and in arrays, and the extra key.
 */
export function recordWithSecrets(secrets: Secrets, sourceId: string, tag: string, padding = '') {
  const s = (where: string) => secrets.make(`${tag}:${where}`);
  return composeBody(sourceId, {
    pathnameUrl: `/secrets/${tag}`,
    requestHeaders: {
      Authorization: `Bearer ${s('header authorization')}`,
      cookie: `sid=${s('header cookie')}`,
      'X-Api-Key': s('header x-api-key'),
      'proxy-authorization': `Basic ${s('header proxy-authorization')}`,
      'x-session-id': s('header x-session-id'),
      [EXTRA_REDACT_KEY]: s('header extra key'),
    },
    queryParams: {
      password: s('query password'),
      access_token: s('query access_token'),
      api_key: s('query api_key'),
      session: [s('query session[0]'), s('query session[1]')],
    },
    responseHeaders: {
      'set-cookie': [`a=${s('response set-cookie[0]')}`, `b=${s('response set-cookie[1]')}`],
      'content-type': 'application/json',
    },
    requestBody: {
      user: 'ana',
      password: s('body password'),
      nested: {
        clientSecret: s('body nested.clientSecret'),
        list: [{ token: s('body nested.list[0].token') }, { 'api-key': s('body nested.list[1].api-key') }],
      },
      Authorization: s('body Authorization'),
      [EXTRA_REDACT_KEY]: s('body extra key'),
      padding,
    },
    responseBody: {
      sessionId: s('response body sessionId'),
      refresh_token: s('response body refresh_token'),
      passwd: s('response body passwd'),
    },
  });
}
