import type { JsonValue } from '@tapline/shared/browser';

export interface JsonTreeProps {
  readonly value: JsonValue;
  readonly name?: string;
}

/** A JSON body as nested disclosure widgets: every object and array folds, every value is text. */
export function JsonTree({ value, name }: JsonTreeProps) {
  const label = name === undefined ? null : <span className="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-leaf">
        {label}
        <span className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries: [string, JsonValue][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  const summary = Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`;
  return (
    <details open className="json-node">
      <summary>
        {label}
        <span className="json-count">{summary}</span>
      </summary>
      {entries.map(([key, child]) => (
        <JsonTree key={key} name={key} value={child} />
      ))}
    </details>
  );
}
