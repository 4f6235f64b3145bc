import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** A real nginx in front of daemons, as docs/postgres.md configures it. */
export interface Nginx {
  readonly url: string;
  stop(): Promise<void>;
}

/** Where Debian's package puts it: /usr/sbin may be missing from a non-login PATH. */
const DEBIAN_NGINX = '/usr/sbin/nginx';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The `location /` block of docs/postgres.md, with everything nginx writes kept in a temporary
 * prefix: it runs as this user, in the foreground, as the test's child process.
 */
function config(dir: string, port: number, upstreams: readonly string[]): string {
  return `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    upstream tapline {
${upstreams.map((u) => `        server ${new URL(u).host};`).join('\n')}
        keepalive 16;
    }
    server {
        listen 127.0.0.1:${port};
        client_max_body_size 64m;
        location / {
            proxy_pass http://tapline;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }
    }
}
`;
}

/** Starts Debian's nginx (`/usr/sbin/nginx`) on a free loopback port and waits until it answers. */
export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'tapline-nginx-'));
  const port = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), config(dir, port, upstreams));
  const child = execa(
    existsSync(DEBIAN_NGINX) ? DEBIAN_NGINX : 'nginx',
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
    { reject: false, stdin: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`nginx exited with ${child.exitCode}: ${String((await child).stderr)}`);
    const answer = await fetch(`${url}/healthz`).catch(() => undefined);
    if (answer?.ok) break;
    if (Date.now() > deadline) throw new Error('nginx did not answer within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async stop() {
      child.kill('SIGQUIT');
      await child;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
