import { ApiError, contract, createClient, type Me, type TaplineClient } from '@tapline/shared/browser';

/**
 * Where the token lives: this tab's memory and its sessionStorage (so a reload keeps the user
 * signed in, and closing the tab forgets it). Never a cookie, so no request carries it by itself
 * (no CSRF), and never a URL the server sees: `tapline open` passes it in the fragment, which
 * browsers never send, and `takeTokenFromFragment` removes it from the address bar at once.
 */
const STORAGE_KEY = 'tapline.token';

export interface Session {
  readonly token: string;
  readonly me: Me;
  readonly client: TaplineClient;
}

export function clientFor(token?: string): TaplineClient {
  return createClient({ baseUrl: window.location.origin, ...(token ? { token } : {}), timeoutMs: 30_000 });
}

export function storedToken(): string | undefined {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function keepToken(token: string | undefined): void {
  try {
    if (token) window.sessionStorage.setItem(STORAGE_KEY, token);
    else window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (a private window's quota): the token stays in memory for this page only.
  }
}

/** `#token=…` as `tapline open` writes it: taken, then wiped from the address and history entry. */
export function takeTokenFromFragment(): string | undefined {
  const hash = window.location.hash.replace(/^#/, '');
  const token = new URLSearchParams(hash).get('token') ?? undefined;
  if (token !== undefined)
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token || undefined;
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
