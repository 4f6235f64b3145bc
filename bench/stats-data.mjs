// Traffic for the statistics benchmarks (issue 26): realistic records (the test kit's) filed under
// 200 route templates, each with its own method and typical latency (log-normal around a median
// between 4 and 400 ms), 94 % 2xx, 5 % 404, 1 % 503, spread over the last 24 hours, so that almost
// every route has a row in almost every minute, as a busy API's do.
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const ROUTES = 200;
const DAY = 86_400_000;

const routeOf = (r) => ({
  method: r % 5 === 0 ? 'POST' : r % 11 === 0 ? 'DELETE' : 'GET',
  path: (id) => `/api/v1/area-${r % 10}/resource-${r}/${id}`,
  median: 4 * Math.pow(100, ((r * 37) % ROUTES) / ROUTES),
});

/** A standard normal variate (Box–Muller). */
const normal = () => Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());

/** `n` records for `sourceId`, each at a random time of the `span` (24 hours) before `now`. */
export function statsBatch(realisticRecord, sourceId, n, now, seed, span = DAY) {
  return Array.from({ length: n }, (_, i) => {
    const r = Math.floor(Math.random() * ROUTES);
    const route = routeOf(r);
    const u = Math.random();
    return {
      ...realisticRecord(seed + i, sourceId),
      method: route.method,
      pathnameUrl: route.path(1 + Math.floor(Math.random() * 100_000)),
      status: u < 0.01 ? 503 : u < 0.06 ? 404 : 200,
      elapsedTime: Math.round(route.median * Math.exp(0.6 * normal()) * 1000) / 1000,
      startedAt: new Date(now - 60_000 - Math.floor(Math.random() * (span - 120_000))).toISOString(),
    };
  });
}

/** Posts `count` such records in batches of 1,000 over four connections. */
export async function seedStats(daemon, sourceId, count, realisticRecord, log, now = Date.now(), span = DAY) {
  const sizes = Array.from({ length: Math.ceil(count / 1000) }, (_, i) => Math.min(1000, count - i * 1000));
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < sizes.length; i = next++) {
      const body = JSON.stringify(statsBatch(realisticRecord, sourceId, sizes[i], now, i * 1000, span));
      for (;;) {
        const r = await fetch(`${daemon.url}/http-traffic-record/${sourceId}/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
          body,
        });
        // The daemon sheds load with a 503 and Retry-After when this busy machine falls behind.
        if (r.status === 503)
          await new Promise((resolve) => setTimeout(resolve, 1000 * Number(r.headers.get('retry-after') ?? 1)));
        else if (!r.ok) throw new Error(`seeding batch answered ${r.status}: ${await r.text()}`);
        else break;
      }
      if ((i + 1) % 100 === 0) log(`seeded ${((i + 1) * 1000).toLocaleString('en')} records`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/**
 * The last minutes topped up after a long seeding, at the day's rate: seeding a million records
 * takes minutes, and without this the newest minutes of a 24-hour window would hold nothing,
 * which no busy source's do (a read takes those minutes from the database).
 */
export async function topUpStats(daemon, sourceId, count, realisticRecord, log, since) {
  const span = Date.now() - since + 120_000;
  const n = Math.ceil((count * span) / DAY);
  log(`topping up the last ${Math.round(span / 60_000)} minutes with ${n.toLocaleString('en')} records`);
  await seedStats(daemon, sourceId, n, realisticRecord, () => {}, Date.now(), span);
}

export const daemonRequire = (root) => createRequire(join(root, 'packages', 'daemon', 'package.json'));
