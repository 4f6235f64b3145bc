/** 1: the command failed; 2: it was used wrongly (docs/decisions.md §13.5). */
export type ExitCode = 1 | 2;

/**
 * A failure meant for the person at the shell: its message is the whole story, and it carries
 * the code `taplined` exits with. The entry file prints `taplined: <message>` and exits with it;
 * anything else thrown is unexpected, and exits 1. On the ground floor, so that any command's
 * module can throw it without importing another command.
 */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = 1,
  ) {
    super(message);
  }
}

/** Bad usage of taplined: exit code 2 and this message. */
export class UsageError extends ExitError {
  constructor(message: string) {
    super(message, 2);
  }
}
