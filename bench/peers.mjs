// The proxy's peers, from Debian's packages: nginx (`proxy_pass`, the floor) and mitmproxy in
// reverse mode (a recording proxy like Tapline's). Installed with apt-get when missing and the
// bench runs as root; otherwise the peer is skipped, and the caller prints why.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stopChild } from './lib.mjs';

const PACKAGES = { nginx: { bin: 'nginx', pkg: 'nginx' }, mitmproxy: { bin: 'mitmdump', pkg: 'mitmproxy' } };

function which(bin) {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${bin} || ls /usr/sbin/${bin} 2>/dev/null`], { encoding: 'utf8' })
        .trim()
        .split('\n')[0] || null
    );
  } catch {
    return null;
  }
}

/** The peer's executable, installing its package first if need be; `{ skipped }` says why not. */
export function ensurePeer(name, log) {
  const { bin, pkg } = PACKAGES[name];
  const found = which(bin);
  if (found) return { path: found };
  if (process.getuid?.() !== 0)
    return { skipped: `${bin} is not installed and the bench is not root (apt-get install ${pkg})` };
  log(`installing ${pkg} with apt-get (once)`);
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env, timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], {
      stdio: 'ignore',
      env,
      timeout: 600_000,
    });
  } catch (error) {
    return { skipped: `apt-get install ${pkg} failed: ${error.message.split('\n')[0]}` };
  }
  const installed = which(bin);
  return installed ? { path: installed } : { skipped: `${pkg} installed, but ${bin} is not on the PATH` };
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, child, name) {
  const { connect } = await import('node:net');
  for (let i = 0; i < 400; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${name} did not listen on ${port} within 10 s`);
}

/**
 * nginx as a plain reverse proxy: one worker (Tapline's proxy is one process too), keep-alive to
 * the app, no access log (recording nothing is the point of a floor).
 */
export async function startNginx(path, dir, targetUrl) {
  const port = await freePort();
  const prefix = join(dir, 'nginx');
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  const target = new URL(targetUrl);
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  # nginx closes a client's keep-alive connection after 1,000 requests by default, which a load
  # generator counts as errors; Tapline's proxy has no such limit.
  keepalive_requests 10000000;
  keepalive_timeout 65s;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  upstream app { server ${target.host}; keepalive 64; keepalive_requests 10000000; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const child = spawn(path, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  await waitForPort(port, child, 'nginx');
  return { url: `http://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

/** mitmdump in reverse mode, quiet (no flow printing), its state in the bench's temporary home. */
export async function startMitmproxy(path, dir, targetUrl) {
  const port = await freePort();
  const confdir = join(dir, 'mitmproxy');
  mkdirSync(confdir, { recursive: true });
  const child = spawn(
    path,
    [
      '--mode',
      `reverse:${targetUrl}`,
      '--listen-host',
      '127.0.0.1',
      '--listen-port',
      String(port),
      '--set',
      `confdir=${confdir}`,
      '-q',
    ],
    {
      stdio: 'ignore',
    },
  );
  await waitForPort(port, child, 'mitmdump');
  return { url: `http://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}
