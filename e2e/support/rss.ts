import { readFileSync } from 'node:fs';

/** A process's resident set in MB, from /proc (Linux): what the machine actually gives it. */
export const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Samples RSS every 100 ms, so a peak between two reads of the test is still seen. */
export function createRssSampler(pid: number): { now(): number; peak(): number; stop(): void } {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  return {
    now: () => {
      const mb = rssMb(pid);
      peak = Math.max(peak, mb);
      return mb;
    },
    peak: () => peak,
    stop: () => clearInterval(timer),
  };
}

/**
 * The largest send queue (bytes written, not yet taken by the peer) among TCP sockets on local
 * `port`, from /proc/net/tcp and tcp6: the kernel's share of what a stream holds for its client.
 */
export function largestSendQueue(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let largest = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , , queues] = line.trim().split(/\s+/);
      if (!local?.endsWith(`:${hexPort}`) || !queues) continue;
      largest = Math.max(largest, Number.parseInt(queues.split(':')[0] ?? '0', 16));
    }
  }
  return largest;
}
