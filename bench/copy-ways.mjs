// `node bench/copy-ways.mjs [rounds] [--now]`: a batch of 1,000 realistic entries stored by COPY on a
// throwaway durable cluster, in process, the ways of bench/copy-ways.ts alternated round by round:
// wall time, this process's CPU and the backend's CPU (from /proc) a batch, medians.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { median } from './figures.mjs';
import { importTs } from './ts.mjs';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 10);
const cluster = await (
  await importTs(root, 'packages/testkit/src/postgres/cluster.ts')
).startCluster({ durable: true });
const ways = await importTs(root, 'bench/copy-ways.ts');
const opened = ways.open(cluster.url);
await opened.migrate();
const lineOf = ways.lineMaker(opened.db);
const textLineOf = ways.textLineMaker(opened.db);
const piecesOf = ways.piecesMaker(opened.db);
const pg = createRequire(join(root, 'packages/daemon/package.json'))('pg');
const { from: copyFrom } = createRequire(join(root, 'packages/daemon/package.json'))('pg-copy-streams');
const client = new pg.Client({ connectionString: cluster.url });
await client.connect();
const {
  rows: [{ pid }],
} = await client.query('select pg_backend_pid() as pid');
const ticks = (path) => {
  const f = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
const variants = {
  'eager, 1 MiB pieces': { lazy: false, chunk: 1 << 20 },
  'eager, text format': { lazy: false, chunk: 1 << 20, text: true },
  'lazy, 64 KiB pieces': { lazy: true, chunk: 1 << 16 },
  'lazy, 64 KiB, text': { lazy: true, chunk: 1 << 16, text: true },
  'lazy, 64 KiB, bytes': { lazy: true, chunk: 1 << 16, text: true, bytes: true },
};
// `--now`: only the last two (the text format's lines joined, before §20.25, and its bytes, now).
if (process.argv.includes('--now')) for (const name of Object.keys(variants).slice(0, 3)) delete variants[name];
const figures = Object.fromEntries(Object.keys(variants).map((k) => [k, { wall: [], node: [], backend: [] }]));
let batch = 0;
for (let round = -2; round < rounds; round++) {
  for (const [name, way] of round % 2 ? Object.entries(variants).reverse() : Object.entries(variants)) {
    const rows = ways.rowsOfBatch(batch++, 1000);
    const cpu0 = process.cpuUsage();
    const b0 = ticks(`/proc/${pid}/stat`);
    const t0 = performance.now();
    await ways.store(client, copyFrom, lineOf, rows, way, textLineOf, piecesOf);
    const wall = performance.now() - t0;
    const { user, system } = process.cpuUsage(cpu0);
    if (round < 0) continue; // warm-up
    figures[name].wall.push(wall);
    figures[name].node.push((user + system) / 1000);
    figures[name].backend.push(ticks(`/proc/${pid}/stat`) - b0);
  }
}
await client.end();
await opened.close();
await cluster.stop();
for (const [name, f] of Object.entries(figures))
  process.stdout.write(
    `${name.padEnd(22)} wall ${median(f.wall).toFixed(1)} ms, Node CPU ${median(f.node).toFixed(1)} ms, backend CPU ${median(f.backend).toFixed(0)} ms\n`,
  );
