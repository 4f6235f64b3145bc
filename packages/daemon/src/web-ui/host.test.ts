import { describe, expect, it } from 'vitest';
import { hostName, hostNamesDaemon } from './host.js';

describe('hostNamesDaemon (DNS rebinding)', () => {
  const allowed = new Set(['tapline.internal']);

  it('takes IP literals, localhost and the names given, with or without a port', () => {
    for (const host of [
      '127.0.0.1:7468',
      '10.1.2.3',
      '[::1]:7468',
      '[fd00::5]',
      'localhost:7468',
      'LOCALHOST',
      'app.localhost',
      'tapline.internal:443',
      'Tapline.Internal.',
    ]) {
      expect(hostNamesDaemon(host, allowed), host).toBe(true);
    }
  });

  it('refuses any other name, a missing header and malformed ones', () => {
    for (const host of [
      undefined,
      '',
      'attacker.example:7468',
      'localhost.attacker.example',
      'tapline.internal.attacker.example',
      '[::1',
      '[::1]x',
      'a b',
      'localhost:port',
    ]) {
      expect(hostNamesDaemon(host, allowed), String(host)).toBe(false);
    }
  });

  it('reads the name without port or brackets, lower case', () => {
    expect(hostName('[::1]:80')).toBe('::1');
    expect(hostName('Example.COM:8080')).toBe('example.com');
  });
});
