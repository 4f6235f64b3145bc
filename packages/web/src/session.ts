import { ApiError, contract, createClient, type Me, type TaplineClient } from '@tapline/shared/browser';
import { earlyFetch } from './early.js';
import { keepToken } from './token.js';

export { keepToken } from './token.js';

export interface Session {
  readonly token: string;
  readonly me: Me;
  readonly client: TaplineClient;
}

export function clientFor(token?: string): TaplineClient {
  return createClient({
    baseUrl: window.location.origin,
    ...(token ? { token } : {}),
    timeoutMs: 30_000,
    fetch: earlyFetch(token),
  });
}

/** Checks a token with `GET /auth/me`; the error says, in words, why the user must sign in again. */
export async function openSession(token: string, client = clientFor(token)): Promise<Session> {
  const me = await client.call(contract.me);
  return { token, me, client };
}

/** The sign-in page's line for a token the daemon refused. */
export function signInReason(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'token_expired') return `Your session expired (${error.message}). Sign in again.`;
    if (error.status === 401) return 'Your token was revoked or is no longer valid. Sign in again.';
    if (error.status === 400) return 'That is not a Tapline token.';
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function signIn(email: string, password: string): Promise<Session> {
  const { token } = await clientFor().call(contract.createToken, { body: { email, password } });
  return openSession(token);
}

/** Revokes the token (`DELETE /auth/token`) and forgets it; forgotten even when the daemon is away. */
export async function signOut(session: Session): Promise<void> {
  keepToken(undefined);
  await session.client.call(contract.revokeOwnToken).catch(() => undefined);
}
