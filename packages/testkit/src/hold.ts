/**
 * A point where a test holds the code under test: the code awaits `wait()`, the test awaits
 * `reached` (the code got there) and calls `release()` to let it go on. Only the first pass holds.
 */
export interface HoldPoint {
  wait(): Promise<void>;
  readonly reached: Promise<void>;
  release(): void;
}

export function holdPoint(): HoldPoint {
  let arrive = () => {};
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  return {
    wait() {
      if (held) return Promise.resolve();
      held = true;
      arrive();
      return released;
    },
    reached,
    release: () => release(),
  };
}
