import {
  ApiError,
  contract,
  formatLatency,
  formatLocalTime,
  type HttpTrafficRecord,
  recordUrl,
  type TaplineClient,
  toCurl,
} from '@tapline/shared/browser';
import { useEffect, useState } from 'react';
import { DiffTable } from './DiffTable.js';
import { LinkedLogs } from './LinkedLogs.js';
import { Message } from './Message.js';
import { ReplayPanel } from './ReplayPanel.js';

/** The entry marked to diff against, kept for the tab (as the token is): `{source} {id}`. */
const MARK_KEY = 'tapline.marked';
const markedId = (sourceId: string) => {
  const [source, id] = (window.sessionStorage.getItem(MARK_KEY) ?? '').split(' ');
  return source === sourceId ? id : undefined;
};

export interface RecordViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly entryId: string;
  readonly onBack: () => void;
  /** A linked core log: the logs view, open at it. */
  readonly onOpenLog: (logId: string) => void;
  readonly onError: (error: unknown) => void;
}

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'missing' }
  | { readonly kind: 'record'; readonly record: HttpTrafficRecord };

/** One whole record: request and response side by side, timing, copy as curl, its core logs. */
export function RecordView({ client, sourceId, entryId, onBack, onOpenLog, onError }: RecordViewProps) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [copied, setCopied] = useState<string | undefined>();
  const [marked, setMarked] = useState(() => markedId(sourceId));
  const [against, setAgainst] = useState<HttpTrafficRecord | undefined>();
  const [replaying, setReplaying] = useState(false);

  useEffect(() => {
    client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id: entryId } }).then(
      (record) => setLoaded({ kind: 'record', record }),
      (error: unknown) => {
        // A shared link to an entry that is gone (or never was): a page that says so.
        if (error instanceof ApiError && (error.status === 404 || error.status === 400)) setLoaded({ kind: 'missing' });
        else onError(error);
      },
    );
  }, [client, sourceId, entryId, onError]);

  const back = (
    <button type="button" onClick={onBack}>
      ← Traffic
    </button>
  );
  if (loaded.kind === 'loading') return <p role="status">Loading the entry…</p>;
  if (loaded.kind === 'missing') {
    return (
      <section className="not-found" aria-label="Entry not found">
        <h1>Entry not found</h1>
        <p>
          There is no entry <code>{entryId}</code> in this source: it may have been deleted by retention, or the link
          names another source.
        </p>
        {back}
      </section>
    );
  }
  const { record } = loaded;
  const mark = () => {
    window.sessionStorage.setItem(MARK_KEY, `${sourceId} ${record.id}`);
    setMarked(record.id);
    setAgainst(undefined);
  };
  const diff = () => {
    if (!marked) return;
    client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id: marked } }).then(setAgainst, onError);
  };
  const curl = toCurl(record);
  const copy = () => {
    navigator.clipboard.writeText(curl).then(
      () => setCopied('Copied as curl.'),
      () => setCopied('The browser refused the clipboard: select the command below.'),
    );
  };
  return (
    <article className="record" aria-label="Entry">
      <div className="record-head">
        {back}
        <h1>
          <span className="method">{record.method}</span>{' '}
          <span className={`status status-${Math.floor(record.status / 100)}xx`}>{record.status}</span>{' '}
          <span className="target">{recordUrl(record)}</span>
        </h1>
      </div>
      <dl className="facts">
        <dt>When</dt>
        <dd>{formatLocalTime(record.createdAt)}</dd>
        <dt>Took</dt>
        <dd>{formatLatency(record.elapsedTime)}</dd>
        <dt>Level</dt>
        <dd>{record.level}</dd>
        {record.route && (
          <>
            <dt>Route</dt>
            <dd>{record.route}</dd>
          </>
        )}
        <dt>Id</dt>
        <dd>
          <code>{record.id}</code>
        </dd>
      </dl>
      <div className="actions">
        <button type="button" onClick={copy}>
          Copy as curl
        </button>
        <button type="button" onClick={mark} disabled={marked === record.id}>
          {marked === record.id ? 'Marked for diff' : 'Mark for diff'}
        </button>
        {marked && marked !== record.id && (
          <button type="button" onClick={diff}>
            Diff with marked
          </button>
        )}
        <button type="button" aria-expanded={replaying} onClick={() => setReplaying(!replaying)}>
          Replay…
        </button>
        {copied && <span role="status">{copied}</span>}
      </div>
      {against && <DiffTable a={against} b={record} />}
      {replaying && <ReplayPanel record={record} sourceId={sourceId} pageOrigin={window.location.origin} />}
      <pre className="raw curl" aria-label="curl command">
        {curl}
      </pre>
      <div className="sides">
        <Message
          title="Request"
          headers={record.request.headers}
          query={record.request.queryParams}
          body={record.request.body}
        />
        <Message title="Response" headers={record.response.headers} body={record.response.body} />
      </div>
      <LinkedLogs
        client={client}
        sourceId={sourceId}
        entryId={record.id}
        entryCreatedAt={record.createdAt}
        onOpenLog={onOpenLog}
        onError={onError}
      />
    </article>
  );
}
