// Issue 2: compose throughput and p99 at 50 connections (target >= 4,000 records/s).
// Three rounds of 10 s after a warm-up; the median round is the figure, every round is shown.
import { autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';

const ROUNDS = 3;

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const body = JSON.stringify(composeBody(source.id));
    const target = `${daemon.url}/http-traffic-record/${source.id}`;
    const args = ['-c', '50', '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', body];
    await autocannon(root, [...args, '-d', '3', target]);
    const rounds = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const result = await autocannon(root, [...args, '-d', '10', target]);
      rounds.push({ perSecond: Math.round(result['2xx'] / result.duration), p50: result.latency.p50, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts });
      log(`round ${i}: ${rounds.at(-1).perSecond} records/s, p99 ${result.latency.p99} ms`);
    }
    const median = [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(ROUNDS / 2)];
    return {
      'compose records/s (50 connections, median round)': median.perSecond,
      'compose latency p50 / p99 ms (median round)': `${median.p50} / ${median.p99}`,
      'every round records/s': rounds.map((r) => r.perSecond).join(', '),
      'non-2xx, errors and time-outs': rounds.reduce((n, r) => n + r.bad, 0),
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
