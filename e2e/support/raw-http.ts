import { connect, type Socket } from 'node:net';

/** A plain TCP connection to the daemon, for clients no HTTP library would imitate (slow, idle, never reading). */
export interface RawConnection {
  readonly socket: Socket;
  /** Everything the daemon has sent so far, as text. */
  received(): string;
  /** Resolves when the daemon closes the connection, with what it sent and how long it stayed open. */
  readonly closed: Promise<{ readonly text: string; readonly openMs: number }>;
  /** Resolves once `pattern` shows in what the daemon sent. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export async function rawConnect(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const opened = Date.now();
  let text = '';
  const listeners = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const listener of listeners) listener();
  });
  // A reset counts as closed: the point is that the daemon let go of the socket.
  socket.on('error', () => undefined);
  const closed = new Promise<{ text: string; openMs: number }>((resolve) =>
    socket.once('close', () => resolve({ text, openMs: Date.now() - opened })),
  );
  return {
    socket,
    received: () => text,
    closed,
    waitFor: (pattern, timeoutMs = 10_000) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(text);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in: ${text.slice(0, 500)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

/** Rejects if `promise` has not settled within `ms`: a bound on how long the daemon may hold a socket. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
