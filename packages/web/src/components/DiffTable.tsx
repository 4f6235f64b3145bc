import { type Difference, diffRecords, type HttpTrafficRecord } from '@tapline/shared/browser';
import { useMemo } from 'react';

export interface DiffTableProps {
  /** The marked entry. */
  readonly a: HttpTrafficRecord;
  /** The entry shown. */
  readonly b: HttpTrafficRecord;
}

const shown = (value: Difference['a']) => (value === undefined ? '—' : JSON.stringify(value));

/** Every difference between two exchanges, by path (`response.body.items[3].price`), as `tapline traffic diff` finds them. */
export function DiffTable({ a, b }: DiffTableProps) {
  const differences = useMemo(() => diffRecords(a, b), [a, b]);
  if (differences.length === 0) return <p role="status">The two exchanges are the same (ids and times aside).</p>;
  return (
    <table className="diff">
      <caption>
        {differences.length} difference{differences.length === 1 ? '' : 's'}: marked entry <code>{a.id}</code> → this
        one
      </caption>
      <thead>
        <tr>
          <th scope="col">Where</th>
          <th scope="col">Marked</th>
          <th scope="col">This entry</th>
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
