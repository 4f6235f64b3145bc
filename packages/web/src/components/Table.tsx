import type { ReactNode } from 'react';

export interface TableProps {
  readonly caption: string;
  readonly columns: readonly string[];
  /** A last column of buttons, named for screen readers only. */
  readonly actions?: boolean;
  readonly children: ReactNode;
}

/** A list as a table: caption, column heads, the rows given. */
export function Table({ caption, columns, actions = false, children }: TableProps) {
  return (
    <table className="stats">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
          {actions && (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

export interface Said {
  readonly text: string;
  readonly bad: boolean;
}

/** What the last action did: a status, or an alert when it failed. */
export function Outcome({ said }: { readonly said: Said | undefined }) {
  if (!said) return null;
  return (
    <p className={said.bad ? 'notice error' : 'notice'} role={said.bad ? 'alert' : 'status'}>
      {said.text}
    </p>
  );
}
