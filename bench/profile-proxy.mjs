// `node bench/profile-proxy.mjs [seconds]`: where `tapline proxy`'s time goes. Starts the built
// daemon and proxy under `node --cpu-prof` in front of the bench's app, loads the proxy (20
// connections, autocannon in its own process), stops both, and prints each process's CPU per
// request and heaviest functions by self time, charged to source files through the bundles' maps.
// Not a scenario: a profile slows what it measures, so its figures are shares, never rates.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, cpuMs, createSource, spawnDaemon, spawnNode, spawnProxy, tempHome } from './lib.mjs';
import { loadRealisticRecord } from './ts.mjs';
import { appAnswer } from './scenarios/proxy.mjs';
import { sourceOf } from './source-map.mjs';

const root = join(import.meta.dirname, '..');
const seconds = Number(process.argv[2] ?? 15);
const home = tempHome();
const profiles = (who) => join(home.path, `profiles-${who}`);
const daemon = spawnDaemon(join(root, 'packages/daemon/dist/taplined.js'), home.path, {
  nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profiles('daemon')],
});
const url = await daemon.ready;
const token = readFileSync(join(home.path, 'token'), 'utf8').trim();
await createSource(url, token, 'profile');
const realistic = await loadRealisticRecord(root);
writeFileSync(join(home.path, 'answer.json'), JSON.stringify(appAnswer(realistic)));
const app = spawnNode([join(root, 'bench/floors/app.mjs'), join(home.path, 'answer.json')], /app listening on (\S+)/);
const appUrl = await app.ready;
const proxy = spawnProxy(root, {
  url,
  token,
  source: 'profile',
  target: appUrl,
  nodeFlags: ['--cpu-prof', '--cpu-prof-dir', profiles('proxy')],
});
const proxyUrl = await proxy.ready;
const args = ['-c', '20', '-H', 'accept=application/json', `${proxyUrl}/api/v1/orders?status=open&page=2`];
await autocannon(root, [...args, '-d', '2']);
const cpu0 = { proxy: cpuMs(proxy.child.pid), daemon: cpuMs(daemon.child.pid) };
const result = await autocannon(root, [...args, '-d', String(seconds)]);
const cpu1 = { proxy: cpuMs(proxy.child.pid), daemon: cpuMs(daemon.child.pid) };
await new Promise((r) => setTimeout(r, 1500));
await proxy.stop();
await daemon.stop();
await app.stop();
const n = result.requests.total;
process.stdout.write(
  `${Math.round(n / seconds)} requests/s while profiled; CPU ms per request: proxy ${((cpu1.proxy - cpu0.proxy) / n).toFixed(3)}, daemon ${((cpu1.daemon - cpu0.daemon) / n).toFixed(3)}\n`,
);

for (const [who, bundleDir] of [
  ['proxy', 'packages/cli/dist'],
  ['daemon', 'packages/daemon/dist'],
]) {
  const maps = new Map();
  const lookupIn = (frameUrl) => {
    const file = frameUrl.replace(/^file:\/\//, '');
    if (!file.includes(bundleDir)) return undefined;
    if (!maps.has(file)) {
      try {
        maps.set(file, sourceOf(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
      } catch {
        maps.set(file, undefined);
      }
    }
    return maps.get(file);
  };
  const where = ({ functionName, url: frameUrl, lineNumber, columnNumber }) => {
    if (!frameUrl) return functionName;
    const lookup = lookupIn(frameUrl);
    const original = lookup
      ? (lookup(lineNumber, columnNumber) ?? 'unmapped')
      : frameUrl.replace(/^node:internal\//, 'node:');
    return original.replace(/^(\.\.\/)+/, '').replace(/.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
  };
  for (const file of readdirSync(profiles(who)).filter((f) => f.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(profiles(who), file), 'utf8'));
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map();
    const files = new Map();
    let busy = 0;
    profile.samples.forEach((id, i) => {
      const node = nodes.get(id);
      const dt = profile.timeDeltas[i] ?? 0;
      if (node.callFrame.functionName === '(idle)') return;
      busy += dt;
      const w = where(node.callFrame);
      const key = `${node.callFrame.functionName || '(anonymous)'} [${w}]`;
      self.set(key, (self.get(key) ?? 0) + dt);
      files.set(w, (files.get(w) ?? 0) + dt);
    });
    const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
    process.stdout.write(`\n== ${who} (${file}): busy ${(busy / 1e6).toFixed(1)} s\nby file:\n`);
    for (const [k, us] of top(files, 25))
      process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
    process.stdout.write('by function (self):\n');
    for (const [k, us] of top(self, 30))
      process.stdout.write(`  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${k}\n`);
  }
}
if (process.env.KEEP_PROFILES) process.stdout.write(`\nprofiles kept in ${home.path}\n`);
else home.remove();
