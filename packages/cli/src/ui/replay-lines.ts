import { type HttpTrafficRecord, levelOf } from '@tapline/shared';
import { CliError } from '../exit-codes.js';
import { ReplayUnreachable, type ReplayResponse } from '../replay/send.js';
import { recordLines, wrapLine } from './record-lines.js';

/** Where a replay from the record view stands. */
export type ReplayState =
  | { readonly state: 'sending' }
  | { readonly state: 'done'; readonly response: ReplayResponse }
  | { readonly state: 'failed'; readonly lines: readonly string[] };

/**
 * A failed replay as lines, saying what can be done from here: the UI sends a record only as it
 * was recorded, so a refusal names each missing value with the flag of `shellCommand` (the
 * `tapline traffic replay` of this entry) that gives it; a target that did not answer can be
 * tried again, or the request copied as a curl command to send elsewhere.
 */
export function failureLines(error: unknown, shellCommand: string): string[] {
  if (error instanceof ReplayUnreachable)
    return [error.message, 'is the target running? r sends it again; c copies it as a curl command, to send elsewhere'];
  if (error instanceof CliError) {
    const hint = error.hint ? error.hint.split('\n').map((l) => l.trim()) : [];
    return [
      error.message,
      ...hint,
      '',
      'the UI sends only what was recorded; from a shell:',
      `${shellCommand} <the flags above>`,
    ];
  }
  return [error instanceof Error ? error.message : String(error)];
}

const GUTTER = ' │ ';

/** The recorded response and the replayed one side by side, each wrapped to half the width. */
export function replayLines(record: HttpTrafficRecord, replay: ReplayState, width: number): string[] {
  const half = Math.max(10, Math.floor((width - GUTTER.length) / 2));
  const left = ['Recorded', ...recordLines(record, 'response', half)];
  const right =
    replay.state === 'sending'
      ? ['Replayed', 'Sending…']
      : replay.state === 'failed'
        ? ['Not replayed', '', ...replay.lines.flatMap((l) => wrapLine(l, half))]
        : [
            'Replayed now',
            ...recordLines(
              {
                ...record,
                status: replay.response.status,
                level: levelOf(replay.response.status),
                elapsedTime: replay.response.elapsedTime,
                response: { headers: replay.response.headers, body: replay.response.body },
              },
              'response',
              half,
            ),
          ];
  return Array.from(
    { length: Math.max(left.length, right.length) },
    (_, i) => `${(left[i] ?? '').padEnd(half)}${GUTTER}${right[i] ?? ''}`,
  );
}
