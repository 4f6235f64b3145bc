import { tryParseFilter } from '@tapline/shared/browser';
import { type FormEvent, type RefObject, useId, useState } from 'react';

export interface FilterBarProps {
  /** The filter in force. */
  readonly value: string;
  /** Called with a filter that parses; a bad one never reaches the list. */
  readonly onApply: (q: string) => void;
  readonly inputRef?: RefObject<HTMLInputElement | null>;
}

/** The filter language (docs/filter-language.md), checked as it is typed: the error and its column. */
export function FilterBar({ value, onApply, inputRef }: FilterBarProps) {
  const [text, setText] = useState(value);
  const errorId = useId();
  const parsed = text.trim() === '' ? undefined : tryParseFilter(text);
  const error = parsed && !parsed.ok ? parsed.error : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!error) onApply(text.trim());
  };

  return (
    <form className="filter-bar" role="search" onSubmit={submit}>
      <label htmlFor={`${errorId}-input`}>Filter</label>
      <input
        id={`${errorId}-input`}
        ref={inputRef}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') e.currentTarget.blur();
        }}
        placeholder='status>=500 and path^="/api"'
        spellCheck={false}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      <button type="submit" disabled={error !== undefined}>
        Apply
      </button>
      {error && (
        <div id={errorId} className="filter-error" role="alert">
          <pre aria-hidden="true">
            {error.expression}
            {'\n'}
            {' '.repeat(Math.max(0, error.column - 1))}^
          </pre>
          <span>
            {error.reason} (column {error.column})
          </span>
        </div>
      )}
    </form>
  );
}
