import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startDaemon, TAPLINED, tempHome, type SpawnedDaemon } from './support/binaries.js';
import { compose, createSource } from './support/compose.js';
import { rawConnect, type RawConnection, within } from './support/raw-http.js';

/** A compose whose body stops after its first bytes, as a client trickling it in would. */
async function trickledBody(url: string, token: string, sourceId: string): Promise<RawConnection> {
  const conn = await rawConnect(url);
  conn.socket.write(
    `POST /http-traffic-record/${sourceId} HTTP/1.1\r\nHost: tapline\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"domainUrl":',
  );
  return conn;
}

/**
 * Slow and idle clients are let go on the daemon's deadlines (`--headers-timeout`,
 * `--request-timeout`, `--keep-alive-timeout`), set short here so the test is quick. The bounds
 * below are several times the deadlines, yet far below what Node's own defaults allowed (60 s
 * for headers, checked only every 30 s), so the old behaviour fails them.
 */
describe('taplined timeouts', () => {
  const home = tempHome();
  let daemon: SpawnedDaemon;
  const BOUND = 6_000;

  beforeAll(async () => {
    daemon = await startDaemon(home.path, [
      '--headers-timeout',
      '1s',
      '--request-timeout',
      '2s',
      '--keep-alive-timeout',
      '500ms',
    ]);
  });
  afterAll(async () => {
    await daemon?.stop();
    home.remove();
  });

  it('answers 408 to a client that never finishes its headers, and closes the socket', async () => {
    const conn = await rawConnect(daemon.url);
    conn.socket.write('GET /healthz HTTP/1.1\r\nHost: tapline\r\nX-Slow: ');
    const { text, openMs } = await within(conn.closed, BOUND, 'closing a slow-header socket');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(openMs).toBeGreaterThanOrEqual(900);
  });

  it('closes a connection that never sends a byte', async () => {
    const conn = await rawConnect(daemon.url);
    const { openMs } = await within(conn.closed, BOUND, 'closing a silent socket');
    expect(openMs).toBeGreaterThanOrEqual(900);
  });

  it('answers 408 to a body that trickles in past the request deadline', async () => {
    const { url, token } = daemon;
    const sourceId = await createSource(url, token, 'slow-body');
    const conn = await trickledBody(url, token, sourceId);
    const { text, openMs } = await within(conn.closed, BOUND, 'closing a slow-body socket');
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(openMs).toBeGreaterThanOrEqual(1_900);
  });

  it('closes an idle keep-alive connection after its answer', async () => {
    const conn = await rawConnect(daemon.url);
    conn.socket.write('GET /healthz HTTP/1.1\r\nHost: tapline\r\nConnection: keep-alive\r\n\r\n');
    await conn.waitFor(/"status":"ok"/);
    const { text } = await within(conn.closed, BOUND, 'closing an idle keep-alive socket');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('keeps an event stream open past the request deadline: the deadline is for receiving the request', async () => {
    const { url, token } = daemon;
    const sourceId = await createSource(url, token, 'long-stream');
    const conn = await rawConnect(url);
    conn.socket.write(
      `GET /http-traffic/${sourceId}/stream HTTP/1.1\r\nHost: tapline\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    await conn.waitFor(/event: ready/);
    // A body that trickles in, begun after the stream: once the daemon has closed it on the request
    // deadline, that deadline has been checked past the stream's own too, and the stream must be open.
    const slow = await trickledBody(url, token, sourceId);
    expect((await within(slow.closed, BOUND, 'closing a slow-body socket')).text).toMatch(/^HTTP\/1\.1 408 /);
    const { id } = await compose(url, token, sourceId);
    await conn.waitFor(new RegExp(`id: ${id}`));
    conn.socket.destroy();
  });

  it('refuses durations it cannot read, and a header deadline past the request deadline, with exit code 2', async () => {
    const run = (args: string[]) =>
      execa('node', [TAPLINED, '--port', '0', '--home', home.path, ...args], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
      });
    const bad = await run(['--headers-timeout', 'soon']);
    expect({ code: bad.exitCode, stderr: bad.stderr }).toEqual({
      code: 2,
      stderr: 'taplined: --headers-timeout takes a duration of at least 100ms such as 10s, 500ms or 2m (got "soon")',
    });
    const crossed = await run(['--headers-timeout', '30s', '--request-timeout', '20s']);
    expect({ code: crossed.exitCode, stderr: crossed.stderr }).toEqual({
      code: 2,
      stderr: 'taplined: --headers-timeout must not be longer than --request-timeout',
    });
  });
});
