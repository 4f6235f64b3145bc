// `node bench/ab-batch.mjs BEFORE_TAPLINED_JS [rounds] [seconds]`: batches of 1,000 (4 connections)
// and single composes (50 connections) to two daemons, another build's (`before`, a copy of a built
// packages/daemon/dist, e.g. packages/daemon/dist-before/taplined.js) and this checkout's
// (`after`), interleaved round by round (each side first in every other round) with the parse + redact + insert floor
// (bench/floors/sqlite-batch.mjs), as the batch scenario measures them. For a change to the
// ingest path on a shared machine, where only figures taken side by side mean anything.
// With `--postgres` (anywhere among the arguments): both daemons on one throwaway durable
// PostgreSQL cluster (bench/postgres.mjs), each in a database of its own, beside the batch
// scenario's PostgreSQL floor (`pg` alone with COPY, bench/floors/postgres-copy.mjs).
// With `--single`: single composes only (no batches, no floor), for a change to the request path.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  autocannon,
  composeRecord,
  cpuMs,
  createSource,
  rssMiB,
  spawnDaemon,
  tempHome,
  threadCpuMs,
  throughput,
} from './lib.mjs';
import { median } from './figures.mjs';
import { importTs, loadRealisticRecord } from './ts.mjs';

const here = join(import.meta.dirname, '..');
const onPostgres = process.argv.includes('--postgres');
const singleOnly = process.argv.includes('--single');
const [before, rounds = '5', seconds = '5'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!before) throw new Error('usage: node bench/ab-batch.mjs BEFORE_TAPLINED_JS [rounds] [seconds]');
const home = tempHome();
const realistic = await loadRealisticRecord(here);
const batchOf = (n, sourceId) => JSON.stringify(Array.from({ length: n }, (_, seed) => realistic(seed, sourceId)));
const file = (name, text) => (writeFileSync(join(home.path, name), text), join(home.path, name));

const cluster = onPostgres
  ? await (await importTs(here, 'packages/testkit/src/postgres/cluster.ts')).startCluster({ durable: true })
  : undefined;
/** A database of its own for each side on the cluster: its URL. */
async function databaseOf(name) {
  const pg = createRequire(join(here, 'packages/daemon/package.json'))('pg');
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query(`create database ab_${name}`);
  await client.end();
  return cluster.url.replace(/\/postgres$/, `/ab_${name}`);
}

// `AB_AFTER_NODE_FLAGS='--flag …'`: the after side runs with these Node or V8 flags (two builds may
// then be the same one, to measure a flag).
const afterFlags = process.env.AB_AFTER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
// `AB_AFTER_DAEMON_ARGS='--flag …'`: the same for the daemon's own flags (e.g. `--lean-heap`).
const afterArgs = process.env.AB_AFTER_DAEMON_ARGS?.split(' ').filter(Boolean) ?? [];
// `AB_BEFORE_DAEMON_ARGS='--flag …'`: the before side's (e.g. a flag of the old build against a change of the new).
const beforeArgs = process.env.AB_BEFORE_DAEMON_ARGS?.split(' ').filter(Boolean) ?? [];

async function start(entry, name) {
  const dir = join(home.path, name);
  const db = cluster ? ['--db', await databaseOf(name)] : [];
  const daemon = spawnDaemon(entry, dir, {
    nodeFlags: name === 'after' ? afterFlags : [],
    args: [...db, ...(name === 'after' ? afterArgs : name === 'before' ? beforeArgs : [])],
  });
  const url = await daemon.ready;
  const token = readFileSync(join(dir, 'token'), 'utf8').trim();
  const source = await createSource(url, token, 'ab');
  const args = ['-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${token}`];
  const thousand = file(`${name}-thousand.json`, batchOf(1000, source.id));
  const single = JSON.stringify(composeRecord(realistic, source.id));
  const path = `${url}/http-traffic-record/${source.id}`;
  const post = async (body, connections, target, perRequest) => {
    const { pid } = daemon.child;
    const cpu0 = cpuMs(pid);
    const main0 = threadCpuMs(pid, pid);
    const r = throughput(
      await autocannon(here, [...args, '-c', String(connections), '-d', seconds, ...body, target]),
      name,
      perRequest,
    );
    return {
      perSecond: r.perSecond,
      p99: r.p99,
      cpuUs: ((cpuMs(pid) - cpu0) * 1000) / (r.count * perRequest),
      // The event loop's share: the thread that stores, against the batch worker's and V8's helpers.
      mainUs: ((threadCpuMs(pid, pid) - main0) * 1000) / (r.count * perRequest),
      // The daemon's peak RSS since it started (batches come first in every round).
      peakMiB: rssMiB(pid, 'VmHWM'),
    };
  };
  return {
    name,
    daemon,
    dir,
    source,
    url,
    token,
    db: db[1],
    batch: () => post(['-i', thousand], 4, `${path}/batch`, 1000),
    single: () => post(['-b', single], 50, path, 1),
  };
}

// The floor's database: one of the daemon's schema with a source, made by this checkout, then closed.
const floorSide = await start(join(here, 'packages/daemon/dist/taplined.js'), 'floor');
const floorBody = file('floor.json', batchOf(1000, floorSide.source.id));
await floorSide.daemon.stop();
const floorArgs = cluster
  ? ['bench/floors/postgres-copy.mjs', floorSide.db, floorSide.source.id, floorBody, seconds]
  : [
      'bench/floors/sqlite-batch.mjs',
      'parse',
      join(floorSide.dir, 'tapline.db'),
      floorSide.source.id,
      floorBody,
      seconds,
    ];
const floor = () =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, [join(here, floorArgs[0]), ...floorArgs.slice(1)], (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout).perSecond),
    ),
  );

const sides = [await start(before, 'before'), await start(join(here, 'packages/daemon/dist/taplined.js'), 'after')];
for (const side of sides) await (singleOnly ? side.single() : side.batch()); // warm-up: the source's dictionary, the JIT
// Each round runs the floor, then both sides, which go first in turn: the side that runs right
// after the floor (or the other side's load) meets a different machine.
const values = {
  floor: [],
  ...Object.fromEntries(
    sides.flatMap((s) => [
      [`${s.name} batch`, []],
      [`${s.name} single`, []],
    ]),
  ),
};
for (let round = 1; round <= Number(rounds); round++) {
  if (!singleOnly) values.floor.push(await floor());
  for (const side of round % 2 ? sides : [...sides].reverse()) {
    if (!singleOnly) values[`${side.name} batch`].push(await side.batch());
    values[`${side.name} single`].push(await side.single());
  }
  process.stderr.write(
    `round ${round}: ${sides
      .map((s) => {
        const batch = values[`${s.name} batch`].at(-1);
        const single = values[`${s.name} single`].at(-1);
        const batchText = batch
          ? `${batch.perSecond.toFixed(0)}/s ${batch.cpuUs.toFixed(0)} µs (main ${batch.mainUs.toFixed(0)}), `
          : '';
        return `${s.name} ${batchText}single ${single.perSecond.toFixed(0)}/s ${single.cpuUs.toFixed(0)} µs`;
      })
      .join(', ')}${singleOnly ? '' : `, floor ${values.floor.at(-1).toFixed(0)}`}\n`,
  );
}
const fixed = (n, d = 2) => n.toFixed(d);
const ratios = (name) => values[`${name} batch`].map((r, i) => r.perSecond / values.floor[i]);
for (const side of sides) {
  const batch = values[`${side.name} batch`];
  const single = values[`${side.name} single`];
  const batchText = singleOnly
    ? ''
    : `batches of 1,000 ${fixed(median(batch.map((r) => r.perSecond)), 0)}/s, ` +
      `× floor ${ratios(side.name)
        .map((r) => fixed(r))
        .join(' ')} (median ${fixed(median(ratios(side.name)))}), ` +
      `daemon CPU ${fixed(median(batch.map((r) => r.cpuUs)), 1)} µs/record ` +
      `(main thread ${fixed(median(batch.map((r) => r.mainUs)), 1)}), ` +
      `peak RSS ${fixed(Math.max(...batch.map((r) => r.peakMiB)), 1)} MiB; `;
  process.stdout.write(
    `${side.name}: ${batchText}` +
      `single composes ${fixed(median(single.map((r) => r.perSecond)), 0)}/s, p99 ${fixed(median(single.map((r) => r.p99)), 0)} ms, ` +
      `CPU ${fixed(median(single.map((r) => r.cpuUs)), 0)} µs/record\n`,
  );
}
const afterOverBefore = values['after batch'].map((r, i) => r.perSecond / values['before batch'][i].perSecond);
const singleRatio = values['after single'].map((r, i) => r.perSecond / values['before single'][i].perSecond);
process.stdout.write(
  `after/before, same round: ${singleOnly ? '' : `batches ${afterOverBefore.map((r) => fixed(r)).join(' ')} (median ${fixed(median(afterOverBefore))}); `}` +
    `single ${singleRatio.map((r) => fixed(r)).join(' ')} (median ${fixed(median(singleRatio))})` +
    `${singleOnly ? '' : `; floor ${values.floor.map((f) => fixed(f, 0)).join(' ')}`}\n`,
);
for (const side of sides) await side.daemon.stop();
await cluster?.stop();
home.remove();
