import { until } from '../until.js';

export { until };

/** Waits until the frame contains `text` (a string or a pattern) and returns the frame. */
export const frameWith = (lastFrame: () => string | undefined, text: string | RegExp, timeoutMs?: number) =>
  until(
    () => lastFrame() ?? '',
    (f) => (typeof text === 'string' ? f.includes(text) : text.test(f)),
    timeoutMs,
  );

export const frameWithout = (lastFrame: () => string | undefined, text: string, timeoutMs?: number) =>
  until(
    () => lastFrame() ?? '',
    (f) => !f.includes(text),
    timeoutMs,
  );

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
  enter: '\r',
  escape: '\u001B',
  tab: '\t',
} as const;

/**
 * Types keys one at a time, at a fast typist's pace: ink-testing-library's stdin keeps only the
 * last chunk written, and a screen that just appeared subscribes to input in an effect that runs
 * a moment after its first frame is drawn.
 */
export async function press(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    stdin.write(key);
  }
}
