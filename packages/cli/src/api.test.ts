import { createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EXIT } from './exit-codes.js';
import { run } from '@tapline/testkit/cli';

describe('requests', () => {
  it('stop on Ctrl-C: a daemon that never answers does not hold the CLI', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket)).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const ctrlC = new AbortController();
    try {
      const pending = run(['--url', url, '--token', 't', 'traffic', 'list', '0190a000-0000-7000-8000-000000000000'], {
        signal: ctrlC.signal,
      });
      setTimeout(() => ctrlC.abort(), 100);
      const result = await pending;
      expect(result.code).toBe(EXIT.OK);
      expect(result.stderr).toBe('tapline: interrupted\n');
    } finally {
      sockets.forEach((s) => s.destroy());
      silent.close();
    }
  });
});
