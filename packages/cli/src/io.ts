/** What a command may touch of the outside world; tests pass their own. */
export interface Io {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: { write(text: string): unknown };
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on Ctrl-C, so long-running commands (tail, proxy) can end cleanly with exit 0. */
  readonly signal: AbortSignal;
  /** The process's own streams, for the full-screen UI (Ink needs real ones); tests of other commands leave it out. */
  readonly terminal?: Terminal;
}

export interface Terminal {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

export const processIo = (signal: AbortSignal): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signal,
  terminal: { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
});

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
