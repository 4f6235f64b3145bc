import { ApiError, UnreachableError } from '@tapline/shared/browser';
import { signInReason } from './session.js';

/** One line for a failed call, as shown on the page. */
export function describeError(error: unknown): string {
  if (error instanceof UnreachableError) return 'The daemon does not answer. Retrying when you try again.';
  return error instanceof Error ? error.message : String(error);
}

/** The reason to send the user back to the sign-in page, when the token is what failed. */
export function authFailure(error: unknown): string | undefined {
  return error instanceof ApiError && error.status === 401 ? signInReason(error) : undefined;
}
