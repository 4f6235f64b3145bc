import { Readable } from 'node:stream';
import { runCli, type Io } from '@tapline/cli';

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as one JSON document. */
  json<T = unknown>(): T;
  /** stdout parsed as NDJSON. */
  lines<T = unknown>(): T[];
}

export interface RunOptions {
  readonly input?: string;
  readonly stdinTTY?: boolean;
  readonly stdoutTTY?: boolean;
  readonly columns?: number;
  readonly env?: Record<string, string>;
  /** Stands for Ctrl-C (main.ts aborts it on SIGINT). */
  readonly signal?: AbortSignal;
}

/** An Io that records what a command writes; the environment is empty unless given. */
export function fakeIo(options: RunOptions = {}): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = Object.assign(Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]), {
    isTTY: options.stdinTTY ?? false,
  });
  return {
    out,
    err,
    stdout: { write: (t: string) => out.push(t), isTTY: options.stdoutTTY ?? false, columns: options.columns ?? 100 },
    stderr: { write: (t: string) => err.push(t) },
    stdin,
    env: { HOME: '/nonexistent', ...options.env },
    signal: options.signal ?? new AbortController().signal,
  };
}

/** argv in, exit code and output out: the CLI as a function. */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const io = fakeIo(options);
  const code = await runCli(argv, io);
  const stdout = io.out.join('');
  return {
    code,
    stdout,
    stderr: io.err.join(''),
    json: <T>() => JSON.parse(stdout) as T,
    lines: <T>() =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T),
  };
}
