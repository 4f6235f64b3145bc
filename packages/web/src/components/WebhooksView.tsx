import {
  contract,
  type CreatedWebhook,
  formatLocalTime,
  type TaplineClient,
  type Webhook,
  WEBHOOK_LEVELS,
  WEBHOOK_TYPES,
  WEBHOOK_URL_RULES,
  type WebhookType,
} from '@tapline/shared/browser';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { describeError, fieldErrors } from '../errors.js';
import { Deliveries } from './Deliveries.js';
import { ConfirmButton, Field, FormError } from './Form.js';
import { Outcome, type Said, Table } from './Table.js';

export interface WebhooksViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  /** The webhook whose deliveries are shown (the address's `webhook`). */
  readonly webhookId: string | undefined;
  readonly onShowDeliveries: (webhookId: string | undefined) => void;
  readonly onError: (error: unknown) => void;
}

/** The source's webhooks, as `tapline webhooks` lists them: add, test, deliveries, delete. */
export function WebhooksView({ client, sourceId, webhookId, onShowDeliveries, onError }: WebhooksViewProps) {
  const [hooks, setHooks] = useState<readonly Webhook[] | undefined>();
  const [said, setSaid] = useState<Said | undefined>();
  const [created, setCreated] = useState<CreatedWebhook | undefined>();
  const [deliveriesAt, setDeliveriesAt] = useState(0);

  const load = useCallback(
    () =>
      client
        .call(contract.listWebhooks, { params: { trafficSourceId: sourceId }, query: { limit: 1000 } })
        .then((page) => setHooks(page.data), onError),
    [client, sourceId, onError],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const test = (hook: Webhook) => {
    setSaid({ text: `Sending a test message to ${hook.value}…`, bad: false });
    client.call(contract.testWebhook, { params: { webhookId: hook.id } }).then(
      ({ delivered, attempt }) => {
        const answer =
          attempt.statusCode === null
            ? (attempt.error ?? 'no answer')
            : `HTTP ${attempt.statusCode}${attempt.error ? `, ${attempt.error}` : ''}`;
        setSaid({
          text: delivered
            ? `Test delivered to ${hook.value} (${answer}).`
            : `Test not delivered to ${hook.value}: ${answer}.`,
          bad: !delivered,
        });
        setDeliveriesAt((n) => n + 1);
      },
      (error: unknown) => setSaid({ text: describeError(error), bad: true }),
    );
  };
  const remove = (hook: Webhook) => {
    client.call(contract.deleteWebhook, { params: { webhookId: hook.id } }).then(
      () => {
        setSaid({ text: `Deleted the webhook to ${hook.value}.`, bad: false });
        if (webhookId === hook.id) onShowDeliveries(undefined);
        void load();
      },
      (error: unknown) => setSaid({ text: describeError(error), bad: true }),
    );
  };

  const shown = hooks?.find((h) => h.id === webhookId);
  return (
    <section className="webhooks-view" aria-label="Webhooks">
      <h1 className="view-title">Webhooks</h1>
      <Outcome said={said} />
      {hooks === undefined ? (
        <p role="status">Loading webhooks…</p>
      ) : hooks.length === 0 ? (
        <p className="empty">No webhook for this source yet.</p>
      ) : (
        <Table caption="Webhooks of this source" columns={['Type', 'Level', 'URL', 'Added']} actions>
          {hooks.map((hook) => (
            <tr key={hook.id} aria-selected={hook.id === webhookId}>
              <td>{hook.type}</td>
              <td className={`level-${hook.level}`}>
                <span className="level">{hook.level}</span>
              </td>
              <th scope="row" className="target">
                {hook.value}
              </th>
              <td>{formatLocalTime(hook.createdAt)}</td>
              <td className="row-actions">
                <button type="button" onClick={() => test(hook)}>
                  Test<span className="visually-hidden"> {hook.value}</span>
                </button>{' '}
                <button
                  type="button"
                  aria-pressed={hook.id === webhookId}
                  onClick={() => onShowDeliveries(hook.id === webhookId ? undefined : hook.id)}
                >
                  Deliveries<span className="visually-hidden"> of {hook.value}</span>
                </button>{' '}
                <ConfirmButton label="Delete" what={`the webhook to ${hook.value}`} onConfirm={() => remove(hook)} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      {created?.secret && (
        <p className="notice" role="status">
          Signing secret of the webhook to {created.value}, shown this once: <code>{created.secret}</code>
        </p>
      )}
      {shown && <Deliveries key={`${shown.id} ${deliveriesAt}`} client={client} webhook={shown} onError={onError} />}
      <AddWebhook
        client={client}
        sourceId={sourceId}
        onAdded={(hook) => {
          setCreated(hook);
          setSaid({ text: `Added a ${hook.type} webhook to ${hook.value}.`, bad: false });
          void load();
        }}
      />
    </section>
  );
}

const FIELDS = ['type', 'level', 'value'] as const;

function AddWebhook({
  client,
  sourceId,
  onAdded,
}: {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly onAdded: (hook: CreatedWebhook) => void;
}) {
  const [type, setType] = useState<WebhookType>('http');
  const [level, setLevel] = useState<(typeof WEBHOOK_LEVELS)[number]>('fatal');
  const [value, setValue] = useState('');
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});
  const [busy, setBusy] = useState(false);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    client.call(contract.createWebhook, { params: { trafficSourceId: sourceId }, body: { type, level, value } }).then(
      (hook) => {
        setBusy(false);
        setErrors({});
        setValue('');
        onAdded(hook);
      },
      (error: unknown) => {
        setBusy(false);
        setErrors(fieldErrors(error, FIELDS) ?? { form: describeError(error) });
      },
    );
  };
  return (
    <form className="add-form" aria-label="Add a webhook" onSubmit={submit} noValidate>
      <h2>Add a webhook</h2>
      <Field id="webhook-type" label="Type" error={errors.type}>
        {(props) => (
          <select
            {...props}
            value={type}
            onChange={(e) => setType(WEBHOOK_TYPES.find((t) => t === e.target.value) ?? 'http')}
          >
            {WEBHOOK_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        )}
      </Field>
      <Field id="webhook-level" label="Level" error={errors.level} hint="entries of this level and worse">
        {(props) => (
          <select
            {...props}
            value={level}
            onChange={(e) => setLevel(WEBHOOK_LEVELS.find((l) => l === e.target.value) ?? 'fatal')}
          >
            {WEBHOOK_LEVELS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        )}
      </Field>
      <Field id="webhook-value" label="URL" error={errors.value} hint={`such as ${WEBHOOK_URL_RULES[type].example}`}>
        {(props) => <input {...props} type="url" value={value} onChange={(e) => setValue(e.target.value)} size={48} />}
      </Field>
      <FormError error={errors.form} />
      <button type="submit" disabled={busy}>
        Add webhook
      </button>
    </form>
  );
}
