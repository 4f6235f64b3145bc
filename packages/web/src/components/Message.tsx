import type { JsonValue } from '@tapline/shared/browser';
import { useState } from 'react';
import { JsonTree } from './JsonTree.js';

type Headers = Readonly<Record<string, string | readonly string[]>>;

export interface MessageProps {
  readonly title: string;
  readonly headers: Headers;
  readonly query?: Headers | undefined;
  readonly body: JsonValue;
}

function Pairs({ caption, pairs }: { readonly caption: string; readonly pairs: Headers }) {
  const rows = Object.entries(pairs).flatMap(([name, value]) =>
    typeof value === 'string' ? [[name, value] as const] : value.map((v) => [name, v] as const),
  );
  if (rows.length === 0) return null;
  return (
    <table className="pairs">
      <caption>{caption}</caption>
      <tbody>
        {rows.map(([name, value], i) => (
          <tr key={`${name}-${i}`}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One side of a record: headers, query, and the body as a tree or as raw text. */
export function Message({ title, headers, query, body }: MessageProps) {
  const [raw, setRaw] = useState(false);
  const structured = body !== null && typeof body === 'object';
  return (
    <section className="message" aria-label={title}>
      <h2>{title}</h2>
      <Pairs caption="Headers" pairs={headers} />
      {query && <Pairs caption="Query" pairs={query} />}
      <div className="body-head">
        <h3>Body</h3>
        {structured && (
          <button type="button" className="link" aria-pressed={raw} onClick={() => setRaw(!raw)}>
            {raw ? 'Show as tree' : 'Show raw'}
          </button>
        )}
      </div>
      {body === null ? (
        <p className="muted">No body.</p>
      ) : structured && !raw ? (
        <div className="json-tree">
          <JsonTree value={body} />
        </div>
      ) : (
        <pre className="raw">{typeof body === 'string' ? body : JSON.stringify(body, null, 2)}</pre>
      )}
    </section>
  );
}
