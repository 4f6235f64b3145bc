import { execa } from 'execa';
import { expect } from 'vitest';
import { cleanEnv } from './binaries.js';

/**
 * Runs an OpenTelemetry-instrumented app (a CommonJS file that prints `listening PORT`) with the
 * OTLP variables of docs/opentelemetry.md plus `env`, lets `drive` send it requests, then stops it
 * (the SDK flushes on shutdown) and expects a clean exit. Metrics and logs exporters are off:
 * Tapline takes traces only (the docs say the same).
 */
export async function runOtelApp(
  app: string,
  env: Record<string, string>,
  drive: (base: string) => Promise<void>,
): Promise<void> {
  // A loaded CI machine can take longer than the exporter's default 10 s (and the batch processor's
  // 30 s) to answer; the SDK then drops the batch (twice in full runs, silently before the app set
  // up the SDK's diagnostic logger).
  const child = execa('node', [app], {
    env: cleanEnv({
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
      OTEL_BSP_EXPORT_TIMEOUT: '60000',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      ...env,
    }),
    extendEnv: false,
    reject: false,
    buffer: { stdout: false, stderr: true },
  });
  const port = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\d+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    void child.then((r) => reject(new Error(`the app exited with ${r.exitCode}: ${String(r.stderr)}`)));
  });
  try {
    await drive(`http://127.0.0.1:${port}`);
  } finally {
    child.kill('SIGTERM');
  }
  const result = await child;
  expect(result.exitCode, String(result.stderr)).toBe(0);
  expect(String(result.stderr)).not.toMatch(/error/i);
}
