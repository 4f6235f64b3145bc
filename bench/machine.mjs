// What the figures were measured on: they mean nothing without it.
import { cpus, loadavg, release, totalmem } from 'node:os';

export function describeMachine() {
  const cores = cpus();
  return {
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    // Others' load shares these cores: a busy machine lowers absolute figures, not the ratios.
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    startedAt: new Date().toISOString(),
  };
}
