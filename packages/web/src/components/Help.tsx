export interface HelpProps {
  readonly onClose: () => void;
}

/** The keys, as in the terminal UI (docs/ui.md). */
export function Help({ onClose }: HelpProps) {
  return (
    <aside className="help" aria-label="Keys">
      <h2>Keys</h2>
      <dl>
        <dt>j / k, ↓ / ↑</dt>
        <dd>next / previous entry</dd>
        <dt>Enter</dt>
        <dd>open the entry</dd>
        <dt>/</dt>
        <dd>filter (Enter applies, Escape leaves)</dd>
        <dt>r, l, w, a</dt>
        <dd>routes, core logs, webhooks, alerts (Tab to the header's buttons for Traffic)</dd>
        <dt>?</dt>
        <dd>show or hide these keys</dd>
        <dt>Tab</dt>
        <dd>every button and field, in order</dd>
      </dl>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </aside>
  );
}
