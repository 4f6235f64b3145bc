// Issue 14: bytes on disk per stored record, with the realistic record (bench/realistic.mjs, about
// 1.44 KB of JSON as posted) sent through the batch endpoint, and the floor beside it: the same
// records as gzip'd NDJSON. Where the bytes go comes from SQLite's dbstat (per table and index).
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { figure } from '../figures.mjs';
import { createSource, KEEP_EVERYTHING, startDaemon, tempHome } from '../lib.mjs';
import { realisticRecord } from '../realistic.mjs';

const FULL_RECORDS = Number(process.env.BENCH_STORAGE_RECORDS ?? 100_000);

export const figures = [
  'JSON posted per record',
  'on disk per record',
  'on disk per record / JSON posted',
  'gzip NDJSON floor per record',
  'indexes per record',
];
const BATCH = 500;

export default async function run({ root, log, quick }) {
  const RECORDS = quick ? 2_000 : FULL_RECORDS;
  const home = tempHome();
  const daemon = await startDaemon(root, home.path, KEEP_EVERYTHING);
  let posted = 0;
  const ndjson = [];
  try {
    const source = await createSource(daemon.url, daemon.token, 'storage');
    for (let done = 0; done < RECORDS; done += BATCH) {
      const records = Array.from({ length: Math.min(BATCH, RECORDS - done) }, (_, i) =>
        realisticRecord(source.id, done + i),
      );
      const body = JSON.stringify(records);
      for (const r of records) ndjson.push(JSON.stringify(r));
      posted += body.length - 1 - (records.length - 1); // the records, without the array's brackets and commas
      const response = await fetch(`${daemon.url}/http-traffic-record/${source.id}/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
        body,
      });
      if (response.status !== 201) throw new Error(`batch answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
      if ((done / BATCH) % 40 === 0) log(`posted ${(done + records.length).toLocaleString('en')} records`);
    }
  } finally {
    await daemon.stop(); // a clean stop checkpoints the log into the file
  }
  try {
    const file = join(home.path, 'tapline.db');
    const onDisk = statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    const Database = createRequire(join(root, 'packages', 'daemon', 'package.json'))('better-sqlite3');
    const db = new Database(file, { readonly: true });
    const parts = db.prepare('select name, sum(pgsize) as bytes from dbstat group by name order by bytes desc').all();
    db.close();
    const perRecord = (bytes) => Math.round(bytes / RECORDS);
    const json = posted / RECORDS;
    const gz = gzipSync(ndjson.join('\n')).length;
    const indexes = parts.filter(
      (p) =>
        !['http_traffic', 'payload_dictionaries', 'traffic_counts', 'domains', 'pathnames'].includes(p.name) &&
        p.name.includes('_'),
    );
    log(
      `largest parts per record (dbstat): ${parts
        .slice(0, 8)
        .map((p) => `${p.name} ${perRecord(p.bytes)}`)
        .join(', ')}`,
    );
    return {
      figures: {
        'JSON posted per record': figure('bytes', [Math.round(json)]),
        'on disk per record': figure('bytes', [perRecord(onDisk)]),
        'on disk per record / JSON posted': figure('x', [onDisk / RECORDS / json]),
        'gzip NDJSON floor per record': figure('bytes', [perRecord(gz)]),
        'indexes per record': figure('bytes', [perRecord(indexes.reduce((sum, p) => sum + p.bytes, 0))]),
      },
    };
  } finally {
    home.remove();
  }
}
