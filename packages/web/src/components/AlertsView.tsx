import {
  type AlertEvent,
  type AlertRule,
  contract,
  formatLocalTime,
  formatMetricValue,
  formatSpan,
  type TaplineClient,
  tryParseAlertCondition,
  type Webhook,
} from '@tapline/shared/browser';
import { useCallback, useEffect, useState } from 'react';
import { describeError } from '../errors.js';
import { AddAlertRule } from './AddAlertRule.js';
import { scope } from './AlertsBanner.js';
import { ConfirmButton } from './Form.js';
import { Outcome, type Said, Table } from './Table.js';

export interface AlertsViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly onError: (error: unknown) => void;
}

const spans = (r: AlertRule) => `${r.forMs ? `for ${formatSpan(r.forMs)}, ` : ''}window ${formatSpan(r.windowMs)}`;
const STATE_CLASS: Record<AlertRule['state'], string> = {
  firing: 'level-fatal',
  pending: 'level-warning',
  resolved: 'level-info',
  ok: '',
};

/** A history value in the rule's unit (its `when` names the metric). */
const shown = (event: AlertEvent, value: number | null) => {
  const parsed = tryParseAlertCondition(event.when);
  return value === null || !parsed.ok ? '–' : formatMetricValue(parsed.condition.metric, value);
};

/** The source's alert rules with their state, as `tapline alerts list`: add, test, remove, history. */
export function AlertsView({ client, sourceId, onError }: AlertsViewProps) {
  const [rules, setRules] = useState<readonly AlertRule[] | undefined>();
  const [history, setHistory] = useState<readonly AlertEvent[] | undefined>();
  const [hooks, setHooks] = useState<readonly Webhook[]>([]);
  const [said, setSaid] = useState<Said | undefined>();

  const load = useCallback(() => {
    const params = { trafficSourceId: sourceId };
    return Promise.all([
      client.call(contract.listAlertRules, { params, query: { limit: 1000 } }),
      client.call(contract.listAlertHistory, { params, query: { limit: 50 } }),
      client.call(contract.listWebhooks, { params, query: { limit: 1000 } }),
    ]).then(([r, h, w]) => {
      setRules(r.data);
      setHistory(h.data);
      setHooks(w.data);
    }, onError);
  }, [client, sourceId, onError]);
  useEffect(() => {
    void load();
  }, [load]);

  const test = (rule: AlertRule) => {
    client.call(contract.testAlertRule, { params: { ruleId: rule.id } }).then(
      ({ webhookIds }) => {
        setSaid({
          text:
            webhookIds.length === 0
              ? `${rule.when}: no webhook to send a sample to.`
              : `${rule.when}: a sample firing message queued for ${webhookIds.length} webhook${webhookIds.length === 1 ? '' : 's'} (see their deliveries).`,
          bad: webhookIds.length === 0,
        });
      },
      (error: unknown) => setSaid({ text: describeError(error), bad: true }),
    );
  };
  const remove = (rule: AlertRule) => {
    client.call(contract.deleteAlertRule, { params: { ruleId: rule.id } }).then(
      () => {
        setSaid({ text: `Removed the rule ${rule.when} on ${scope(rule)}.`, bad: false });
        void load();
      },
      (error: unknown) => setSaid({ text: describeError(error), bad: true }),
    );
  };

  return (
    <section className="alerts-view" aria-label="Alert rules">
      <h1 className="view-title">Alert rules</h1>
      <Outcome said={said} />
      {rules === undefined ? (
        <p role="status">Loading alert rules…</p>
      ) : rules.length === 0 ? (
        <p className="empty">No alert rule for this source yet.</p>
      ) : (
        <Table
          caption="Alert rules of this source, with their state"
          columns={['State', 'When', 'On', 'Spans', 'Last', 'Notifies']}
          actions
        >
          {rules.map((rule) => (
            <tr key={rule.id} className={STATE_CLASS[rule.state]}>
              <td>
                <span className="level">{rule.state}</span>{' '}
                <span className="muted">since {formatLocalTime(rule.stateSince)}</span>
              </td>
              <th scope="row">
                <code>{rule.when}</code>
              </th>
              <td>{scope(rule)}</td>
              <td>{spans(rule)}</td>
              <td>
                {rule.lastValue === null
                  ? '–'
                  : `${formatMetricValue(rule.metric, rule.lastValue)} (${rule.lastRequests ?? 0} req)`}
              </td>
              <td>
                {rule.webhookIds.length === 0
                  ? 'no target'
                  : `${rule.webhookIds.length} webhook${rule.webhookIds.length === 1 ? '' : 's'}`}
              </td>
              <td className="row-actions">
                <button type="button" onClick={() => test(rule)}>
                  Test<span className="visually-hidden"> {rule.when}</span>
                </button>{' '}
                <ConfirmButton
                  label="Remove"
                  what={`the rule ${rule.when} on ${scope(rule)}`}
                  onConfirm={() => remove(rule)}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <AddAlertRule
        client={client}
        sourceId={sourceId}
        webhooks={hooks}
        onAdded={(rule) => {
          setSaid({ text: `Added the rule ${rule.when} on ${scope(rule)}.`, bad: false });
          void load();
        }}
      />
      <section className="history" aria-label="Alert history">
        <h2>History</h2>
        {history === undefined || history.length === 0 ? (
          <p className="empty">No transition yet.</p>
        ) : (
          <Table
            caption="The newest 50 transitions"
            columns={['At', 'When', 'Change', 'Value', 'Threshold', 'Requests']}
          >
            {history.map((e) => (
              <tr key={e.id} className={STATE_CLASS[e.to]}>
                <td>{formatLocalTime(e.at)}</td>
                <td>
                  <code>{e.when}</code>
                </td>
                <td>
                  <span className="level">
                    {e.from} → {e.to}
                  </span>
                </td>
                <td>{shown(e, e.value)}</td>
                <td>{shown(e, e.threshold)}</td>
                <td>{e.requests}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </section>
  );
}
