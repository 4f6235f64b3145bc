import {
  ALERT_DEFAULTS,
  type AlertRule,
  contract,
  HTTP_METHODS,
  type TaplineClient,
  type Webhook,
} from '@tapline/shared/browser';
import { type FormEvent, useState } from 'react';
import { describeError, fieldErrors } from '../errors.js';
import { Field, FormError } from './Form.js';

export interface AddAlertRuleProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  /** The source's webhooks: a rule names at least one to notify. */
  readonly webhooks: readonly Webhook[];
  readonly onAdded: (rule: AlertRule) => void;
}

const FIELDS = ['when', 'route', 'method', 'for', 'window', 'minRequests', 'webhookIds'] as const;

/** `tapline alerts add`'s options as a form; the daemon checks every field, its messages go beside them. */
export function AddAlertRule({ client, sourceId, webhooks, onAdded }: AddAlertRuleProps) {
  const [when, setWhen] = useState('');
  const [route, setRoute] = useState('');
  const [method, setMethod] = useState('');
  const [forSpan, setFor] = useState('');
  const [windowSpan, setWindowSpan] = useState('');
  const [minRequests, setMinRequests] = useState('');
  const [notify, setNotify] = useState<readonly string[]>([]);
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const count = minRequests.trim() === '' ? undefined : Number(minRequests);
    if (count !== undefined && !Number.isInteger(count)) {
      setErrors({ minRequests: 'minRequests must be a whole number' });
      return;
    }
    const body = {
      when: when.trim(),
      ...(route.trim() ? { route: route.trim() } : {}),
      ...(method ? { method } : {}),
      ...(forSpan.trim() ? { for: forSpan.trim() } : {}),
      ...(windowSpan.trim() ? { window: windowSpan.trim() } : {}),
      ...(count === undefined ? {} : { minRequests: count }),
      webhookIds: [...notify],
    };
    client.call(contract.createAlertRule, { params: { trafficSourceId: sourceId }, body }).then(
      (rule) => {
        setErrors({});
        setWhen('');
        onAdded(rule);
      },
      (error: unknown) => setErrors(fieldErrors(error, FIELDS) ?? { form: describeError(error) }),
    );
  };
  const text = (
    id: string,
    label: string,
    value: string,
    set: (v: string) => void,
    error: string | undefined,
    hint?: string,
  ) => (
    <Field id={`alert-${id}`} label={label} error={error} {...(hint ? { hint } : {})}>
      {(props) => <input {...props} value={value} onChange={(e) => set(e.target.value)} />}
    </Field>
  );
  return (
    <form className="add-form" aria-label="Add an alert rule" onSubmit={submit} noValidate>
      <h2>Add an alert rule</h2>
      {text(
        'when',
        'When',
        when,
        setWhen,
        errors.when,
        'p95 > 800ms, error_rate > 5%, requests < 10/min, p95 > 2x baseline',
      )}
      {text(
        'route',
        'Route',
        route,
        setRoute,
        errors.route,
        'a route template such as /orders/{id}; empty: every route',
      )}
      <Field id="alert-method" label="Method" error={errors.method}>
        {(props) => (
          <select {...props} value={method} onChange={(e) => setMethod(e.target.value)}>
            <option value="">every method</option>
            {HTTP_METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        )}
      </Field>
      {text('for', 'For', forSpan, setFor, errors.for, 'how long it must hold before firing, 1m to 24h')}
      {text(
        'window',
        'Window',
        windowSpan,
        setWindowSpan,
        errors.window,
        `the span measured, 1m to 24h (default ${ALERT_DEFAULTS.window})`,
      )}
      {text(
        'min',
        'Fewest requests',
        minRequests,
        setMinRequests,
        errors.minRequests,
        `below this many in the window, no verdict (default ${ALERT_DEFAULTS.minRequests})`,
      )}
      <fieldset className="field" aria-describedby={errors.webhookIds ? 'alert-webhooks-error' : undefined}>
        <legend>Notify</legend>
        {webhooks.length === 0 && <p className="muted">This source has no webhook: add one in Webhooks first.</p>}
        {webhooks.map((hook) => (
          <label key={hook.id} className="check">
            <input
              type="checkbox"
              checked={notify.includes(hook.id)}
              onChange={(e) =>
                setNotify(e.target.checked ? [...notify, hook.id] : notify.filter((id) => id !== hook.id))
              }
            />{' '}
            {hook.type} {hook.value}
          </label>
        ))}
        {errors.webhookIds && (
          <span id="alert-webhooks-error" className="field-error">
            {errors.webhookIds}
          </span>
        )}
      </fieldset>
      <FormError error={errors.form} />
      <button type="submit">Add rule</button>
    </form>
  );
}
