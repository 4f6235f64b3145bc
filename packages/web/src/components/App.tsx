import { useEffect, useState } from 'react';
import { startToken } from '../early.js';
import { askFirstPageEarly } from '../first-page.js';
import { clientFor, keepToken, openSession, type Session, signInReason } from '../session.js';
import { Shell } from './Shell.js';
import { SignIn } from './SignIn.js';

type Phase =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signed-out'; readonly reason?: string }
  | { readonly kind: 'signed-in'; readonly session: Session };

/** Signs in from the fragment's token, the tab's stored one, or the sign-in page. */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'checking' });

  useEffect(() => {
    // Taken from the fragment (or the tab) by the page's first module, early.ts.
    const token = startToken();
    if (!token) {
      setPhase({ kind: 'signed-out' });
      return;
    }
    const client = clientFor(token);
    askFirstPageEarly(client);
    openSession(token, client).then(
      // The token is in the tab's storage already: early.ts kept the fragment's, or read it there.
      (session) => setPhase({ kind: 'signed-in', session }),
      (error: unknown) => {
        keepToken(undefined);
        setPhase({ kind: 'signed-out', reason: signInReason(error) });
      },
    );
  }, []);

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
