// Shared by the scenarios: spawn the built daemon on a free loopback port in a temporary home.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sample from '../packages/testkit/sample-record.json' with { type: 'json' };

export function tempHome() {
  const path = mkdtempSync(join(tmpdir(), 'tapline-bench-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function startDaemon(root, home, args = []) {
  const child = spawn(process.execPath, [join(root, 'packages/daemon/dist/taplined.js'), '--port', '0', '--home', home, '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`taplined exited with ${code}`)));
  });
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const stop = () =>
    new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { url, token, child, stop };
}

export async function api(url, token, method, path, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs autocannon in its own process (so load generation does not share the daemon's event loop). */
export async function autocannon(root, args) {
  const { execFile } = await import('node:child_process');
  const bin = join(root, 'node_modules', 'autocannon', 'autocannon.js');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, '--json', ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`autocannon failed: ${stderr || error.message}`));
      resolve(JSON.parse(stdout));
    });
  });
}

export async function createSource(url, token, name) {
  return api(url, token, 'POST', '/traffic-source', { name, trafficDomain: 'shop.example.com' });
}

/** The test kit's sample record (packages/testkit/sample-record.json), with a body and secrets to redact. */
export function composeBody(sourceId, overrides = {}) {
  return {
    ...sample,
    trafficSourceId: sourceId,
    method: 'POST',
    requestHeaders: { accept: 'application/json', 'content-type': 'application/json', authorization: 'Bearer x' },
    requestBody: { sku: 'A-1', quantity: 2, password: 'p' },
    queryParams: { page: '1' },
    responseBody: { id: 42, status: 'created' },
    ...overrides,
  };
}
