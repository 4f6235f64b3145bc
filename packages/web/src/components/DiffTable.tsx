import { type Difference, diffRecords, type HttpTrafficRecord } from '@tapline/shared/browser';
import { type ReactNode, useMemo } from 'react';

export interface DiffTableProps {
  /** The marked entry. */
  readonly a: HttpTrafficRecord;
  /** The entry shown. */
  readonly b: HttpTrafficRecord;
  /** The columns' names and what the caption says the two are; a marked entry and this one by default. */
  readonly labels?: { readonly a: string; readonly b: string; readonly between: ReactNode };
}

const shown = (value: Difference['a']) => (value === undefined ? '—' : JSON.stringify(value));

/** Every difference between two exchanges, by path (`response.body.items[3].price`), as `tapline traffic diff` finds them. */
export function DiffTable({ a, b, labels }: DiffTableProps) {
  const differences = useMemo(() => diffRecords(a, b), [a, b]);
  const between = labels?.between ?? (
    <>
      marked entry <code>{a.id}</code> → this one
    </>
  );
  if (differences.length === 0) return <p role="status">The two exchanges are the same (ids and times aside).</p>;
  return (
    <table className="diff">
      <caption>
        {differences.length} difference{differences.length === 1 ? '' : 's'}: {between}
      </caption>
      <thead>
        <tr>
          <th scope="col">Where</th>
          <th scope="col">{labels?.a ?? 'Marked'}</th>
          <th scope="col">{labels?.b ?? 'This entry'}</th>
        </tr>
      </thead>
      <tbody>
        {differences.map((d) => (
          <tr key={d.path} className={`diff-${d.kind}`}>
            <th scope="row">{d.path}</th>
            <td>{shown(d.a)}</td>
            <td>{shown(d.b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
