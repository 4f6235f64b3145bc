import {
  describePlaces,
  formatLatency,
  HTTP_METHODS,
  type HttpMethod,
  type HttpTrafficRecord,
  placeholderOf,
  redactedPlaces,
} from '@tapline/shared/browser';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import {
  bodiless,
  cliCommand,
  DraftError,
  draftOf,
  refusedByBrowser,
  type ReplayDraft,
  replayedRecord,
  requestOf,
  unsentHeaders,
  unsentValues,
} from '../replay/draft.js';
import { type ReplayOutcome, sendFromBrowser } from '../replay/send.js';
import { DiffTable } from './DiffTable.js';
import { HeaderRows } from './HeaderRows.js';
import { Message } from './Message.js';

export interface ReplayPanelProps {
  readonly record: HttpTrafficRecord;
  readonly sourceId: string;
  /** The page's origin, which an app must allow (`Access-Control-Allow-Origin`). */
  readonly pageOrigin: string;
  /** The page's `fetch` by default; component tests give their own. */
  readonly send?: typeof sendFromBrowser;
}

const methodOf = (text: string): HttpMethod => HTTP_METHODS.find((m) => m === text) ?? 'GET';

type State =
  | { readonly kind: 'editing' }
  | { readonly kind: 'sending' }
  /** Not sent: the draft holds what the page will not send (a redacted value, an invalid header). */
  | { readonly kind: 'refused'; readonly message: string }
  | {
      readonly kind: 'done';
      readonly outcome: ReplayOutcome;
      readonly sent: ReturnType<typeof requestOf>;
      readonly command: string;
    };

/**
 * The recorded request, editable, sent again by this browser (never by the daemon, which may run
 * on a server that cannot reach the user's laptop), its answer beside the recorded one, and the
 * differences. What a browser cannot do is said, with the `tapline traffic replay` that can.
 */
export function ReplayPanel({ record, sourceId, pageOrigin, send = sendFromBrowser }: ReplayPanelProps) {
  const [draft, setDraft] = useState<ReplayDraft>(() => draftOf(record));
  const [state, setState] = useState<State>({ kind: 'editing' });
  const live = useRef(true);
  useEffect(() => () => void (live.current = false), []);

  const edit = (change: Partial<ReplayDraft>) => setDraft({ ...draft, ...change });
  // A refused header is never sent anyway: only what the user can fill in is named.
  const places = redactedPlaces(record.request);
  const recordedPlaces = describePlaces({ ...places, headers: places.headers.filter((h) => !refusedByBrowser(h)) });
  const placeholder = placeholderOf(record.request.body);
  const unsent = unsentHeaders(draft);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const missing = unsentValues(draft);
    if (missing.length) {
      setState({
        kind: 'refused',
        message: `Not sent: "[REDACTED]" and body placeholders are never sent; type the real value in ${missing.join(', ')}.`,
      });
      return;
    }
    let sent: ReturnType<typeof requestOf>;
    try {
      sent = requestOf(draft);
    } catch (error) {
      if (!(error instanceof DraftError)) throw error;
      setState({ kind: 'refused', message: `Not sent: ${error.message}.` });
      return;
    }
    setState({ kind: 'sending' });
    const command = cliCommand(sourceId, record, draft);
    void send(sent.url, sent.init).then(
      (outcome) => live.current && setState({ kind: 'done', outcome, sent, command }),
    );
  };

  return (
    <section className="replay" aria-label="Replay">
      <h2>Replay</h2>
      <p className="muted">
        Sent by this browser, not by the daemon, so it reaches what your machine reaches (such as
        http://localhost:3000). The app must answer CORS for this page:{' '}
        <code>Access-Control-Allow-Origin: {pageOrigin}</code>.
      </p>
      {(recordedPlaces || placeholder) && (
        <p className="notice">
          {recordedPlaces && (
            <>
              Redacted when recorded: {recordedPlaces}. Tapline stored &quot;[REDACTED]&quot; there, and a replay never
              sends it (as <code>tapline traffic replay</code>): type each value in before sending.{' '}
            </>
          )}
          {placeholder && <>The body was not kept whole (&quot;{placeholder}&quot;): type the body to send.</>}
        </p>
      )}
      <form className="replay-form" onSubmit={submit}>
        <div className="replay-line">
          <label>
            Method{' '}
            <select value={draft.method} onChange={(e) => edit({ method: methodOf(e.target.value) })}>
              {HTTP_METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <label className="grow">
            URL <input value={draft.url} onChange={(e) => edit({ url: e.target.value })} spellCheck={false} />
          </label>
        </div>
        <HeaderRows headers={draft.headers} onChange={(headers) => edit({ headers })} />
        {unsent.length > 0 && (
          <p className="notice" aria-label="Headers not sent">
            Not sent by the browser: {unsent.join(', ')}. Browsers set these themselves or refuse them to a page;{' '}
            <code>tapline traffic replay</code> sends them.
          </p>
        )}
        <label className="replay-body">
          Body
          <textarea value={draft.body} rows={6} spellCheck={false} onChange={(e) => edit({ body: e.target.value })} />
        </label>
        {bodiless(draft.method) && draft.body !== '' && (
          <p className="notice">A browser sends no body with GET: the body is not sent.</p>
        )}
        <button type="submit" disabled={state.kind === 'sending'}>
          Send
        </button>
      </form>
      <Result state={state} record={record} pageOrigin={pageOrigin} />
    </section>
  );
}

function Result({ state, record, pageOrigin }: { state: State; record: HttpTrafficRecord; pageOrigin: string }) {
  if (state.kind === 'editing') return null;
  if (state.kind === 'sending') return <p role="status">Sending…</p>;
  if (state.kind === 'refused')
    return (
      <p role="alert" className="notice error">
        {state.message}
      </p>
    );
  const { outcome, sent, command } = state;
  if (outcome.kind !== 'answer') {
    return (
      <div role="alert" className="notice error">
        <p>{failure(outcome, pageOrigin)}</p>
        <p>The same replay from a shell, which none of this limits:</p>
        <pre className="raw" aria-label="Replay command">
          {command}
        </pre>
      </div>
    );
  }
  const { answer } = outcome;
  const replayed = replayedRecord(record, sent, answer);
  return (
    <>
      <div className="sides replay-answers">
        <div>
          <p className="answer-line">
            Recorded: <span className="status">{record.status}</span> in {formatLatency(record.elapsedTime)}
          </p>
          <Message title="Recorded answer" headers={record.response.headers} body={record.response.body} />
        </div>
        <div>
          <p className="answer-line" role="status">
            Replayed: <span className="status">{answer.status}</span> {answer.statusText} in{' '}
            {formatLatency(answer.elapsedTime)} ({answer.elapsedTime} ms)
          </p>
          <Message title="Replayed answer" headers={answer.headers} body={answer.body} />
        </div>
      </div>
      <p className="muted">
        A page reads only the answer&apos;s headers the app exposes (<code>Access-Control-Expose-Headers</code>); the
        others show as removed below.
      </p>
      <DiffTable a={record} b={replayed} labels={{ a: 'Recorded', b: 'Replayed', between: 'recorded → replayed' }} />
    </>
  );
}

function failure(outcome: Exclude<ReplayOutcome, { kind: 'answer' }>, pageOrigin: string): string {
  if (outcome.kind === 'redirect')
    return 'The app answered with a redirect, which a browser hides from the page (no status, no Location).';
  if (outcome.kind === 'csp')
    return `This page may not connect to ${outcome.origin}: the daemon allows loopback origins only, and others listed with taplined --ui-replay-origin ${outcome.origin}.`;
  return `No answer this page may read from ${outcome.origin} (${outcome.reason}): either the app is not running there, or it does not answer CORS. It must send Access-Control-Allow-Origin: ${pageOrigin}, and answer the preflight (OPTIONS) allowing these headers and this method.`;
}
