// Issue 2: compose throughput and p99 at 50 connections (target >= 4,000 records/s).
import { autocannon, composeBody, createSource, startDaemon, tempHome } from '../lib.mjs';

export default async function run({ root, log }) {
  const home = tempHome();
  const daemon = await startDaemon(root, home.path);
  try {
    const source = await createSource(daemon.url, daemon.token, 'bench');
    const body = JSON.stringify(composeBody(source.id));
    const args = ['-c', '50', '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${daemon.token}`, '-b', body];
    await autocannon(root, [...args, '-d', '3', `${daemon.url}/http-traffic-record/${source.id}`]); // warm-up
    log('measuring 10 s at 50 connections');
    const result = await autocannon(root, [...args, '-d', '10', `${daemon.url}/http-traffic-record/${source.id}`]);
    const ok = result['2xx'];
    return {
      'compose records/s (50 connections)': Math.round(ok / result.duration),
      'compose latency p50 ms': result.latency.p50,
      'compose latency p99 ms': result.latency.p99,
      'non-2xx responses': result.non2xx,
      'errors / timeouts': `${result.errors} / ${result.timeouts}`,
    };
  } finally {
    await daemon.stop();
    home.remove();
  }
}
