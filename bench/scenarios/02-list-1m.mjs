// Issue 2: latency of a filtered first page on a database of 1,000,000 records (target < 10 ms).
import { join } from 'node:path';
import { api, createSource, percentile, startDaemon, tempHome } from '../lib.mjs';
import { seed } from '../seed.mjs';

const COUNT = Number(process.env.BENCH_LIST_RECORDS ?? 1_000_000);
const ROUNDS = 200;

async function measure(url, token, path) {
  for (let i = 0; i < 20; i++) await api(url, token, 'GET', path); // warm the page cache
  const times = [];
  let total = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const started = process.hrtime.bigint();
    const answer = await api(url, token, 'GET', path);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    total = answer.meta.total;
  }
  times.sort((a, b) => a - b);
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (total ${total.toLocaleString('en')})`;
}

export default async function run({ root, log }) {
  const home = tempHome();
  const dbFile = join(home.path, 'tapline.db');
  let daemon = await startDaemon(root, home.path);
  const source = await createSource(daemon.url, daemon.token, 'bench');
  await daemon.stop();
  log(`seeding ${COUNT.toLocaleString('en')} records`);
  const { pathnames, now } = seed(root, dbFile, source.id, COUNT, log);
  daemon = await startDaemon(root, home.path);
  try {
    const base = `/http-traffic/${source.id}`;
    const day = (n) => new Date(now - n * 24 * 3600 * 1000).toISOString();
    const queries = {
      'level=FATAL': `${base}?level=FATAL`,
      'status=503': `${base}?status=503`,
      'status=5xx': `${base}?status=5xx`,
      'method=DELETE&level=WARNING': `${base}?method=DELETE&level=WARNING`,
      'pathnameId=<one of 100>': `${base}?pathnameId=${pathnames[7].id}`,
      'one day (startDate..endDate)': `${base}?startDate=${day(3)}&endDate=${day(2)}`,
      'status=404&startDate (last 7 days)': `${base}?status=404&startDate=${day(7)}`,
      'no filter (count of all 1M)': base,
      'page 100, level=FATAL': `${base}?level=FATAL&page=100`,
    };
    const figures = { records: COUNT.toLocaleString('en') };
    for (const [name, path] of Object.entries(queries)) {
      figures[`first page ${name}`] = await measure(daemon.url, daemon.token, path);
      log(`${name}: ${figures[`first page ${name}`]}`);
    }
    return figures;
  } finally {
    await daemon.stop();
    home.remove();
  }
}
