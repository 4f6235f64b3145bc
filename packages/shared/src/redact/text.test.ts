import { describe, expect, it } from 'vitest';
import { truncationMarker } from '../capture/truncation.js';
import { REDACTED, secretKeyPattern } from './keys.js';
import { redactText } from './text.js';

const R = JSON.stringify(REDACTED);

describe('redactText: JSON text, whole or cut', () => {
  it('replaces the value of a secret key before the cut and keeps the rest as it was', () => {
    const cut = '{"user":"ann","password":"hunter2","padding":"pppp';
    expect(redactText(cut)).toBe(`{"user":"ann","password":${R},"padding":"pppp`);
  });

  it('replaces a value the cut splits, to the end, and keeps the marker a client appended', () => {
    expect(redactText('{"a":1,"token":"abc')).toBe(`{"a":1,"token":${R}`);
    const marker = truncationMarker(20, 90);
    expect(redactText(`{"a":1,"token":"abc${marker}`)).toBe(`{"a":1,"token":${R}${marker}`);
    expect(redactText(`{"a":1,"session":{"id":"x","n":[1,${marker}`)).toBe(`{"a":1,"session":${R}${marker}`);
  });

  it('reaches keys at any depth and in arrays, and replaces a whole object or array value', () => {
    const text = '{"a":{"b":[{"Session":{"x":"y","z":[1,{"q":"}"}]}},{"ok":1}],"apiKey":["k1","k2"],"c":"d"}}';
    expect(redactText(text)).toBe(`{"a":{"b":[{"Session":${R}},{"ok":1}],"apiKey":${R},"c":"d"}}`);
  });

  it('reads strings with escaped quotes and backslashes, and never takes text inside a value for a key', () => {
    const text = '{"note":"he said \\"token\\": 1","secret":"a\\"b\\\\","after":"ok","path":"C:\\\\"}';
    expect(redactText(text)).toBe(`{"note":"he said \\"token\\": 1","secret":${R},"after":"ok","path":"C:\\\\"}`);
  });

  it('matches keys in any case and spelled with escapes, as JSON.parse reads them', () => {
    const text = '{"PASSWORD":"a","X-Api-Key":"b","apikey":"c","myAccessToken":"d","pass\\u0077ord":"e","name":"f"}';
    expect(redactText(text)).toBe(
      `{"PASSWORD":${R},"X-Api-Key":${R},"apikey":${R},"myAccessToken":${R},"pass\\u0077ord":${R},"name":"f"}`,
    );
  });

  it('replaces numbers, booleans and null, across spaces and line breaks', () => {
    expect(redactText('{"token": 12345, "ok": true, "session" :\n null}')).toBe(
      `{"token": ${R}, "ok": true, "session" :\n ${R}}`,
    );
    expect(redactText('{\n  "password" :\n  "x"\n}')).toBe(`{\n  "password" :\n  ${R}\n}`);
  });

  it('leaves a cut key, or a key whose value the cut left out, as it is', () => {
    for (const text of ['{"a":"b","passw', '{"password":', '{"password": ', '{"password"'])
      expect(redactText(text)).toBe(text);
  });

  it('hands back the same text when nothing is secret, and redacting twice changes nothing more', () => {
    const clean = '{"a":"b","list":[1,2,{"c":"d"}]}';
    expect(redactText(clean)).toBe(clean);
    expect(redactText('password is hunter2')).toBe('password is hunter2');
    const once = redactText('{"token":"t","x":{"secret":{"y":1}}}');
    expect(redactText(once)).toBe(once);
  });

  it('adds names given to the pattern, matched the same way', () => {
    const keys = secretKeyPattern(['x-shop-pin']);
    expect(redactText('{"X-Shop-PIN":"1234","pin":"5"}', keys)).toBe(`{"X-Shop-PIN":${R},"pin":"5"}`);
    expect(redactText('{"X-Shop-PIN":"1234"}')).toBe('{"X-Shop-PIN":"1234"}');
  });

  it('reads a text of many lines of JSON (NDJSON) as one', () => {
    expect(redactText('{"token":"a"}\n{"token":"b"}\n')).toBe(`{"token":${R}}\n{"token":${R}}\n`);
  });
});

describe('redactText: forms', () => {
  it('replaces the values of secret names, decoded as URLSearchParams decodes them, and keeps the rest', () => {
    const form = 'user=ann&password=pw&API_KEY=k&pass%77ord=e&my+token=t&note=a%26password%3Dno&flag&tag=a';
    expect(redactText(form)).toBe(
      `user=ann&password=${REDACTED}&API_KEY=${REDACTED}&pass%77ord=${REDACTED}&my+token=${REDACTED}&note=a%26password%3Dno&flag&tag=a`,
    );
  });

  it('replaces a value the cut splits, keeps a cut name, and reads a broken percent escape byte by byte', () => {
    expect(redactText(`a=1&access_token=abc${truncationMarker(20, 90)}`)).toBe(
      `a=1&access_token=${REDACTED}${truncationMarker(20, 90)}`,
    );
    expect(redactText('a=1&access_tok')).toBe('a=1&access_tok');
    expect(redactText('pass%77ord%zz=x&b=2')).toBe(`pass%77ord%zz=${REDACTED}&b=2`);
  });
});

describe('redactText: multipart/form-data', () => {
  const part = (disposition: string, content: string, type?: string) =>
    `--XyZ\r\n${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${content}\r\n`;

  it('replaces the content of a part with a secret name, a file among them, and redacts JSON and form parts by their pairs', () => {
    const body =
      part('Content-Disposition: form-data; name="user"', 'ann') +
      part('Content-Disposition: form-data; name="password"', 'hunter2\r\nsecond line') +
      part('content-disposition: form-data; filename="key.txt"; name="ApiKey"', 'k-999', 'text/plain') +
      part('Content-Disposition: form-data; name="file"; filename="password.txt"', 'not a secret by its file name') +
      part('Content-Disposition: form-data; name=meta', '{"token":"t","ok":true}', 'application/json') +
      part('Content-Disposition: form-data; name="query"', 'a=1&session=s') +
      '--XyZ--\r\n';
    expect(redactText(body)).toBe(
      part('Content-Disposition: form-data; name="user"', 'ann') +
        part('Content-Disposition: form-data; name="password"', REDACTED) +
        part('content-disposition: form-data; filename="key.txt"; name="ApiKey"', REDACTED, 'text/plain') +
        part('Content-Disposition: form-data; name="file"; filename="password.txt"', 'not a secret by its file name') +
        part('Content-Disposition: form-data; name=meta', `{"token":${R},"ok":true}`, 'application/json') +
        part('Content-Disposition: form-data; name="query"', `a=1&session=${REDACTED}`) +
        '--XyZ--\r\n',
    );
  });

  it('replaces a secret part the cut splits, to the end; a part cut in its headers shows nothing to replace', () => {
    const head = part('Content-Disposition: form-data; name="user"', 'ann');
    const marker = truncationMarker(64, 900);
    expect(redactText(`${head}--XyZ\r\nContent-Disposition: form-data; name="session"\r\n\r\nabc${marker}`)).toBe(
      `${head}--XyZ\r\nContent-Disposition: form-data; name="session"\r\n\r\n${REDACTED}${marker}`,
    );
    const inHeaders = `${head}--XyZ\r\nContent-Disposition: form-data; name="sess`;
    expect(redactText(inHeaders)).toBe(inHeaders);
  });

  it('takes line feeds alone for line breaks, and leaves a body without secrets as it is', () => {
    expect(redactText('--b\nContent-Disposition: form-data; name="token"\n\nt\n--b--\n')).toBe(
      `--b\nContent-Disposition: form-data; name="token"\n\n${REDACTED}\n--b--\n`,
    );
    const clean = part('Content-Disposition: form-data; name="user"', 'ann') + '--XyZ--\r\n';
    expect(redactText(clean)).toBe(clean);
  });
});
