import { type CoreLog, formatLocalTime, type Page, type TaplineClient } from '@tapline/shared/browser';
import { useEffect, useRef, useState } from 'react';
import { FIND_PAGES, findLogPage, LOG_PAGE, listLogs } from '../core-logs.js';

export interface LogsViewProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  /** The log the address names: its page is found, and it is shown open. */
  readonly logId: string | undefined;
  readonly onOpenLog: (id: string | undefined) => void;
  readonly onOpenEntry: (entryId: string) => void;
  readonly onError: (error: unknown) => void;
}

type Loaded =
  | { readonly kind: 'loading' }
  | { readonly kind: 'page'; readonly page: number; readonly answer: Page<CoreLog>; readonly missing: boolean };

/** The source's core logs, newest first, a page at a time, as `tapline logs` lists them. */
export function LogsView({ client, sourceId, logId, onOpenLog, onOpenEntry, onError }: LogsViewProps) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [page, setPage] = useState<number | undefined>();
  const opened = useRef<HTMLLIElement>(null);

  useEffect(() => {
    let live = true;
    setLoaded({ kind: 'loading' });
    const load = async (): Promise<Loaded> => {
      if (page === undefined && logId) {
        const found = await findLogPage(client, sourceId, logId);
        if (found) return { kind: 'page', ...found, missing: false };
        return { kind: 'page', page: 1, answer: await listLogs(client, sourceId, 1), missing: true };
      }
      const at = page ?? 1;
      return { kind: 'page', page: at, answer: await listLogs(client, sourceId, at), missing: false };
    };
    load().then(
      (next) => live && setLoaded(next),
      (error: unknown) => live && onError(error),
    );
    return () => {
      live = false;
    };
    // logId is read only to find the first page; opening another log on this page reloads nothing.
  }, [client, sourceId, page, onError]);

  useEffect(() => {
    opened.current?.scrollIntoView?.({ block: 'nearest' });
  }, [loaded]);

  if (loaded.kind === 'loading') return <p role="status">Loading core logs…</p>;
  const { answer, missing } = loaded;
  const pages = Math.max(1, Math.ceil(answer.meta.total / LOG_PAGE));
  const go = (to: number) => setPage(to);
  return (
    <section className="logs-view" aria-label="Core logs">
      <div className="toolbar">
        <h1 className="view-title">Core logs</h1>
        <span className="muted">
          {answer.meta.total} in all, page {loaded.page} of {pages}
        </span>
        <button type="button" onClick={() => go(loaded.page - 1)} disabled={loaded.page <= 1}>
          Newer
        </button>
        <button type="button" onClick={() => go(loaded.page + 1)} disabled={loaded.page >= pages}>
          Older
        </button>
      </div>
      {missing && (
        <p className="error" role="alert">
          Core log <code>{logId}</code> is not among the newest {FIND_PAGES * LOG_PAGE} of this source: it may have been
          deleted, or the link names another source.
        </p>
      )}
      {answer.data.length === 0 ? (
        <p className="empty">No core logs for this source.</p>
      ) : (
        <ul className="logs">
          {answer.data.map((log) => {
            const open = log.id === logId;
            return (
              <li
                key={log.id}
                id={`log-${log.id}`}
                ref={open ? opened : undefined}
                className={open ? 'log open' : 'log'}
              >
                <button
                  type="button"
                  className="log-head"
                  aria-expanded={open}
                  onClick={() => onOpenLog(open ? undefined : log.id)}
                >
                  <time dateTime={log.createdAt}>{formatLocalTime(log.createdAt)}</time>
                  <span className="layer">{log.layer || '-'}</span>
                  <span className="log-source">{log.source || '-'}</span>
                  <span className="log-title">{log.description ? `${log.title}: ${log.description}` : log.title}</span>
                </button>
                {log.httpTrafficId && (
                  <button type="button" className="link" onClick={() => onOpenEntry(log.httpTrafficId ?? '')}>
                    Entry<span className="visually-hidden"> of {log.title}</span>
                  </button>
                )}
                {open && <LogDetail log={log} />}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function LogDetail({ log }: { readonly log: CoreLog }) {
  return (
    <div className="log-detail">
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{log.id}</code>
        </dd>
        {log.httpTrafficId && (
          <>
            <dt>Entry</dt>
            <dd>
              <code>{log.httpTrafficId}</code>
            </dd>
          </>
        )}
      </dl>
      <h2>Description</h2>
      {log.description ? <pre className="raw">{log.description}</pre> : <p className="muted">No description.</p>}
      <h2>Stack</h2>
      {log.stack ? <pre className="raw">{log.stack}</pre> : <p className="muted">No stack.</p>}
    </div>
  );
}
