import { type ReactNode, useEffect, useRef, useState } from 'react';

export interface FieldProps {
  readonly id: string;
  readonly label: string;
  readonly error: string | undefined;
  readonly hint?: string;
  /** The input, select or fieldset; it gets `id`, and `aria-describedby` when there is an error. */
  readonly children: (props: {
    id: string;
    'aria-invalid': boolean;
    'aria-describedby': string | undefined;
  }) => ReactNode;
}

/** A labelled input with the API's message for it underneath (a 400's issue with its path). */
export function Field({ id, label, error, hint, children }: FieldProps) {
  const described =
    [error ? `${id}-error` : undefined, hint ? `${id}-hint` : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described })}
      {hint && (
        <span id={`${id}-hint`} className="muted hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** The message of a form as a whole (what names none of its fields). */
export function FormError({ error }: { readonly error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export interface ConfirmButtonProps {
  readonly label: string;
  /** What is deleted, for the question and for a screen reader's button name. */
  readonly what: string;
  readonly onConfirm: () => void;
}

/**
 * Delete with a confirmation in the page (no `window.confirm`, which a keyboard user cannot style
 * and the browser tests count as an unexpected dialog): the question, then Yes or Cancel, focus on Cancel.
 */
export function ConfirmButton({ label, what, onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" onClick={() => setAsking(true)}>
        {label}
        <span className="visually-hidden"> {what}</span>
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={`${label} ${what}?`}>
      <span>
        {label} {what}?
      </span>{' '}
      <button type="button" className="danger" onClick={onConfirm}>
        Yes, {label.toLowerCase()}
      </button>{' '}
      <button type="button" ref={cancel} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
