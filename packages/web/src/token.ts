/**
 * Where the token lives: this tab's memory and its sessionStorage (so a reload keeps the user
 * signed in, and closing the tab forgets it). Never a cookie, so no request carries it by itself
 * (no CSRF), and never a URL the server sees: `tapline open` passes it in the fragment, which
 * browsers never send, and `takeTokenFromFragment` removes it from the address bar at once.
 * Apart from session.ts so that the page's first module (early.ts) reads it without the contract.
 */
const STORAGE_KEY = 'tapline.token';

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
