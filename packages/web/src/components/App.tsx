import { useEffect, useState } from 'react';
import { startToken } from '../early.js';
import { askFirstPageEarly } from '../first-page.js';
import { clientFor, keepToken, openSession, type Session, signInReason } from '../session.js';
import { Shell } from './Shell.js';
import { SignIn } from './SignIn.js';

export type Phase =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signed-out'; readonly reason?: string }
  | { readonly kind: 'signed-in'; readonly session: Session };

/**
 * How long the start waits for the token check and the first page before it draws what it has:
 * on loopback both have come by then, and the page is drawn once, signed in with its rows, rather
 * than three times (docs/decisions.md §24.13). A check still running then shows "Signing in…"
 * (render.tsx); a first page still running (a costly filter in a shared link) does not hold the
 * page: it is drawn signed in, and the list shows its rows when they come.
 */
export const QUIET_START_MS = 300;

/**
 * Checks the token the page started with (the fragment's, or the tab's: early.ts took it) and,
 * when the address opens a source's traffic, waits for its first page as well (asked beside the
 * check), up to `QUIET_START_MS` from the start. Never rejects: a refused token is the sign-in
 * page, saying why.
 */
export async function checkStart(): Promise<Phase> {
  const token = startToken();
  if (!token) return { kind: 'signed-out' };
  const quiet = new Promise((resolve) => setTimeout(resolve, QUIET_START_MS));
  const client = clientFor(token);
  const page = askFirstPageEarly(client);
  try {
    // The token is in the tab's storage already: early.ts kept the fragment's, or read it there.
    const session = await openSession(token, client);
    await Promise.race([page, quiet]);
    return { kind: 'signed-in', session };
  } catch (error) {
    keepToken(undefined);
    return { kind: 'signed-out', reason: signInReason(error) };
  }
}

export interface AppProps {
  /** The start's check (`checkStart`). */
  readonly check: Promise<Phase>;
  /** Its outcome when it came before the first render, else `checking` until it comes. */
  readonly initial: Phase;
}

/** Signs in from the fragment's token, the tab's stored one, or the sign-in page. */
export function App({ check, initial }: AppProps) {
  const [phase, setPhase] = useState<Phase>(initial);

  useEffect(() => {
    if (initial.kind === 'checking') void check.then(setPhase);
  }, [check, initial]);

  const onSignedIn = (session: Session) => {
    keepToken(session.token);
    setPhase({ kind: 'signed-in', session });
  };
  const onSignedOut = (reason?: string) => {
    keepToken(undefined);
    setPhase({ kind: 'signed-out', ...(reason ? { reason } : {}) });
  };

  if (phase.kind === 'checking')
    return (
      <p className="centered" role="status">
        Signing in…
      </p>
    );
  if (phase.kind === 'signed-out') return <SignIn reason={phase.reason} onSignedIn={onSignedIn} />;
  return <Shell session={phase.session} onSignedOut={onSignedOut} />;
}
