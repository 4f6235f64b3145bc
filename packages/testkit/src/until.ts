/** How long a test waits for something it can see before it fails; generous for a shared machine. */
export const UNTIL_TIMEOUT_MS = 10_000;
const POLL_MS = 10;

/**
 * Waits for what a test can observe instead of sleeping a fixed time: polls until `holds` is true
 * (`what` names it in the failure), or until `check` accepts what `read` returns (the failure
 * shows the last value, and the value is returned). Fails after `timeoutMs`.
 */
export function until(holds: () => boolean | Promise<boolean>, what: string, timeoutMs?: number): Promise<void>;
export function until<T>(read: () => T, check: (value: T) => boolean, timeoutMs?: number): Promise<T>;
export async function until<T>(
  read: () => T,
  checkOrWhat: ((value: T) => boolean) | string,
  timeoutMs = UNTIL_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const check = typeof checkOrWhat === 'string' ? (value: T) => value === true : checkOrWhat;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        typeof checkOrWhat === 'string'
          ? `timed out after ${timeoutMs} ms waiting for ${checkOrWhat}`
          : `condition not met within ${timeoutMs} ms; last value:\n${String(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
