import { CliError, errorCode, EXIT } from './exit-codes.js';

/** What a system error means for a file named on the command line, by its code. */
const PROBLEMS: Readonly<Record<string, { read: string; write: string }>> = {
  // Opening for writing creates the file, so a missing one is a missing directory.
  ENOENT: { read: 'no such file', write: 'no such directory' },
  ENOTDIR: { read: 'a part of the path is not a directory', write: 'a part of the path is not a directory' },
  EISDIR: { read: 'it is a directory', write: 'it is a directory' },
  EACCES: { read: 'permission denied', write: 'permission denied' },
  EPERM: { read: 'permission denied', write: 'permission denied' },
  EROFS: { read: 'read-only file system', write: 'read-only file system' },
  ENOSPC: { read: 'no space left on the device', write: 'no space left on the device' },
};

/** Whether `error` is a file system failure this module can put in words. */
export const isFileProblem = (error: unknown): boolean => PROBLEMS[errorCode(error) ?? ''] !== undefined;

/**
 * `cannot write /nonexistent/x.har: no such directory`, exit 2: the file the user named cannot
 * be used, which is theirs to change, like any bad argument.
 */
export function fileError(action: 'read' | 'write', path: string, error: unknown): CliError {
  const code = errorCode(error);
  const problem = (code ? PROBLEMS[code]?.[action] : undefined) ?? code ?? String(error);
  return new CliError(EXIT.USAGE, `cannot ${action} ${path}: ${problem}`);
}
