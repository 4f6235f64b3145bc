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

/**
 * A 400's issues by field (`value`, `when`, `webhookIds`), for a form to show beside each input;
 * `form` holds what names no field of the form, so no message is lost.
 */
export function fieldErrors(error: unknown, fields: readonly string[]): Readonly<Record<string, string>> | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const found: Record<string, string> = {};
  for (const issue of error.body.issues ?? []) {
    const field = fields.find((f) => issue.path === f || issue.path.startsWith(`${f}.`)) ?? 'form';
    found[field] = found[field] ? `${found[field]}; ${issue.message}` : issue.message;
  }
  if (Object.keys(found).length === 0) found.form = error.message;
  return found;
}
