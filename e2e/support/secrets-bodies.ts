import { randomInt } from 'node:crypto';
import type { Secrets } from './secrets-plant.js';

/** What the proxy and `@tapline/node` keep of a text body by default (DEFAULT_MAX_BODY). */
export const BODY_LIMIT = 64 * 1024;
/** How much of the value the cut splits stays before the cut: long enough to be unique. */
const KEPT = 28;
const FILLER = 'p';

/** A body with secrets planted in it, as sent, with its content type. */
export interface PlantedBody {
  readonly text: string;
  readonly contentType: string;
}

/**
 * A body whose first `BODY_LIMIT` bytes end KEPT characters into a secret value: `head`, filler,
 * `open`, the value, `close`. The part of the value before the cut is watched on its own, since a
 * client that cut without redacting would store exactly that part.
 */
function straddling(
  secrets: Secrets,
  label: string,
  head: string,
  open: string,
  close: (value: string) => string,
): string {
  const value = secrets.make(label, 24);
  secrets.watch(`${label} (the part before the cut)`, value.slice(0, KEPT));
  const fill = BODY_LIMIT - KEPT - Buffer.byteLength(head) - Buffer.byteLength(open);
  return `${head}${FILLER.repeat(fill)}${open}${value}${close(value)}`;
}

/** Eighteen random digits: a secret that is a JSON number. */
function digits(secrets: Secrets, label: string): string {
  return secrets.watch(label, `9${Array.from({ length: 17 }, () => randomInt(10)).join('')}`);
}

/**
 * JSON over the limit: secrets before the cut (nested, in arrays, an object value, keys in other
 * cases, a key spelled with an escape, a value after an escaped quote, a number, the daemon's
 * extra key), one the cut splits, one after the cut.
 */
export function jsonOverLimit(secrets: Secrets, tag: string, extraKey: string): PlantedBody {
  const s = (where: string) => secrets.make(`${tag} json ${where}`);
  const head =
    `{"user":"ana","note":"she said \\"password\\": no","password":"${s('password')}",` +
    `"nested":{"ApiKey":"${s('nested.ApiKey')}","list":[{"TOKEN":"${s('list[0].TOKEN')}"},{"client_secret":{"v":"${s('object value')}","n":[1,2]}}]},` +
    `"pass\\u0077ord":"${s('escaped key')}","Secret" : "a\\"b ${s('after an escaped quote')}","session_pin":${digits(secrets, `${tag} json number`)},` +
    `"${extraKey}":"${s('extra key')}","padding":"`;
  const text = straddling(
    secrets,
    `${tag} json refresh_token`,
    head,
    '","refresh_token":"',
    () => `","late_password":"${s('after the cut')}"}`,
  );
  return { text, contentType: 'application/json' };
}

/** A form over the limit: secrets before the cut (a name in capitals, one percent-encoded), one the cut splits, one after. */
export function formOverLimit(secrets: Secrets, tag: string, extraKey: string): PlantedBody {
  const s = (where: string) => secrets.make(`${tag} form ${where}`);
  const head = `user=ana&note=a%26password%3Dno&password=${s('password')}&API_KEY=${s('API_KEY')}&pass%77ord=${s('encoded name')}&session=${s('session')}&${extraKey}=${s('extra key')}&padding=`;
  const text = straddling(
    secrets,
    `${tag} form access_token`,
    head,
    '&access_token=',
    () => `&later_secret=${s('after the cut')}`,
  );
  return { text, contentType: 'application/x-www-form-urlencoded' };
}

const BOUNDARY = 'tlboundary';
const part = (disposition: string, content: string, type?: string) =>
  `--${BOUNDARY}\r\n${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${content}\r\n`;

/** multipart/form-data over the limit: secret parts (a file among them, a JSON part with a secret key), one the cut splits. */
export function multipartOverLimit(secrets: Secrets, tag: string, extraKey: string): PlantedBody {
  const s = (where: string) => secrets.make(`${tag} multipart ${where}`);
  const head =
    part('Content-Disposition: form-data; name="user"', 'ana') +
    part('Content-Disposition: form-data; name="password"', s('password')) +
    part('Content-Disposition: form-data; name="apiKey"; filename="key.txt"', s('file apiKey'), 'text/plain') +
    part('Content-Disposition: form-data; name=meta', `{"token":"${s('meta.token')}","ok":true}`, 'application/json') +
    part(`content-disposition: form-data; name="${extraKey.toUpperCase()}"`, s('extra key')) +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="padding"\r\n\r\n`;
  const text = straddling(
    secrets,
    `${tag} multipart session`,
    head,
    `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="session"\r\n\r\n`,
    () => `\r\n--${BOUNDARY}--\r\n`,
  );
  return { text, contentType: `multipart/form-data; boundary=${BOUNDARY}` };
}

/** The first BODY_LIMIT bytes of a body and the marker, as a client that cut it without redacting sent it. */
export function cutAsSent(body: PlantedBody): string {
  const bytes = Buffer.from(body.text);
  return `${bytes.subarray(0, BODY_LIMIT).toString('utf8')}…[truncated by Tapline: ${BODY_LIMIT} of ${bytes.length} bytes shown]`;
}
