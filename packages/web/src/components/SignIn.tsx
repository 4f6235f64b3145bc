import { type FormEvent, useState } from 'react';
import { ApiError } from '@tapline/shared/browser';
import { openSession, type Session, signIn, signInReason } from '../session.js';

export interface SignInProps {
  /** Why the user is here again: an expired or revoked token. */
  readonly reason?: string | undefined;
  readonly onSignedIn: (session: Session) => void;
}

/** E-mail and password (`POST /auth/token`), or a token pasted once. */
export function SignIn({ reason, onSignedIn }: SignInProps) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [mode, setMode] = useState<'password' | 'token'>('password');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : '';
    };
    setBusy(true);
    setError(undefined);
    const attempt =
      mode === 'password' ? signIn(text('email').trim(), text('password')) : openSession(text('token').trim());
    attempt.then(onSignedIn, (failure: unknown) => {
      setBusy(false);
      if (mode === 'password' && failure instanceof ApiError && failure.status === 401)
        setError('Wrong e-mail or password.');
      else
        setError(
          mode === 'token' ? signInReason(failure) : failure instanceof Error ? failure.message : String(failure),
        );
    });
  };

  return (
    <main className="sign-in">
      <h1>Tapline</h1>
      {reason && (
        <p className="notice" role="status">
          {reason}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        {mode === 'password' ? (
          <>
            <label>
              E-mail
              <input name="email" type="email" autoComplete="username" required />
            </label>
            <label>
              Password
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
          </>
        ) : (
          <label>
            Token
            <input name="token" type="password" autoComplete="off" required />
          </label>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        <button type="button" className="link" onClick={() => setMode(mode === 'password' ? 'token' : 'password')}>
          {mode === 'password' ? 'Use a token instead' : 'Use e-mail and password'}
        </button>
      </form>
    </main>
  );
}
