type Pair = readonly [string, string];

export interface HeaderRowsProps {
  readonly headers: readonly Pair[];
  readonly onChange: (headers: readonly Pair[]) => void;
}

/** An editable list of headers, one name and value per row, each labelled for a screen reader. */
export function HeaderRows({ headers, onChange }: HeaderRowsProps) {
  const set = (at: number, pair: Pair) => onChange(headers.map((h, i) => (i === at ? pair : h)));
  return (
    <fieldset className="header-rows">
      <legend>Headers</legend>
      {headers.map(([name, value], i) => (
        // Rows are edited in place and removed by index: the index is their identity.
        <div className="header-row" key={i}>
          <input
            aria-label={`Header ${i + 1} name`}
            value={name}
            spellCheck={false}
            onChange={(e) => set(i, [e.target.value, value])}
          />
          <input
            aria-label={`Header ${i + 1} value`}
            value={value}
            spellCheck={false}
            onChange={(e) => set(i, [name, e.target.value])}
          />
          <button
            type="button"
            aria-label={`Remove header ${i + 1}${name ? ` (${name})` : ''}`}
            onClick={() => onChange(headers.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...headers, ['', '']])}>
        Add header
      </button>
    </fieldset>
  );
}
