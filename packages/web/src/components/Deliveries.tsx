import {
  contract,
  formatLocalTime,
  type TaplineClient,
  type Webhook,
  type WebhookAttempt,
} from '@tapline/shared/browser';
import { useEffect, useState } from 'react';
import { Table } from './Table.js';

export interface DeliveriesProps {
  readonly client: TaplineClient;
  readonly webhook: Webhook;
  readonly onError: (error: unknown) => void;
}

const OUTCOME_CLASS: Record<WebhookAttempt['outcome'], string> = {
  delivered: 'level-info',
  retrying: 'level-warning',
  failed: 'level-fatal',
};

/** One webhook's delivery attempts, newest first, as `tapline webhooks deliveries` lists them. */
export function Deliveries({ client, webhook, onError }: DeliveriesProps) {
  const [attempts, setAttempts] = useState<readonly WebhookAttempt[] | undefined>();
  useEffect(() => {
    let live = true;
    client.call(contract.listWebhookDeliveries, { params: { webhookId: webhook.id }, query: { limit: 100 } }).then(
      (page) => live && setAttempts(page.data),
      (error: unknown) => live && onError(error),
    );
    return () => {
      live = false;
    };
  }, [client, webhook.id, onError]);

  return (
    <section className="deliveries" aria-label="Deliveries">
      <h2>
        Deliveries to <span className="target">{webhook.value}</span>
      </h2>
      {attempts === undefined ? (
        <p role="status">Loading deliveries…</p>
      ) : attempts.length === 0 ? (
        <p className="empty">Nothing sent to this webhook yet.</p>
      ) : (
        <Table
          caption="The newest 100 attempts"
          columns={['When', 'Kind', 'Outcome', 'Status', 'Attempt', 'Took', 'Error']}
        >
          {attempts.map((a) => (
            <tr key={a.id} className={OUTCOME_CLASS[a.outcome]}>
              <td>{formatLocalTime(a.createdAt)}</td>
              <td>{a.kind}</td>
              <td>
                <span className="level">{a.outcome}</span>
                {a.nextAttemptAt && <span className="muted"> (next {formatLocalTime(a.nextAttemptAt)})</span>}
              </td>
              <td>{a.statusCode ?? '–'}</td>
              <td>{a.attempt}</td>
              <td>{a.durationMs} ms</td>
              <td className="wrap">{a.error ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
