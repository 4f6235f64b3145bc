import { type CoreLog, formatLocalTime, type TaplineClient } from '@tapline/shared/browser';
import { useEffect, useState } from 'react';
import { type LinkedLogs as Found, linkedLogs } from '../core-logs.js';

export interface LinkedLogsProps {
  readonly client: TaplineClient;
  readonly sourceId: string;
  readonly entryId: string;
  readonly entryCreatedAt: string;
  readonly onOpenLog: (id: string) => void;
  readonly onError: (error: unknown) => void;
}

/** The core logs written during the entry's request (their `httpTrafficId`); each opens the logs view at it. */
export function LinkedLogs({ client, sourceId, entryId, entryCreatedAt, onOpenLog, onError }: LinkedLogsProps) {
  const [found, setFound] = useState<Found | undefined>();
  useEffect(() => {
    let live = true;
    linkedLogs(client, sourceId, entryId, entryCreatedAt).then(
      (f) => live && setFound(f),
      (error: unknown) => live && onError(error),
    );
    return () => {
      live = false;
    };
  }, [client, sourceId, entryId, entryCreatedAt, onError]);

  return (
    <section className="linked-logs" aria-label="Core logs of this entry">
      <h2>Core logs</h2>
      {found === undefined ? (
        <p role="status">Looking for core logs…</p>
      ) : found.logs.length === 0 ? (
        <p className="muted">No core log names this entry{found.partial ? ' among the newest 10,000' : ''}.</p>
      ) : (
        <ul>
          {found.logs.map((log: CoreLog) => (
            <li key={log.id}>
              <button type="button" className="link" onClick={() => onOpenLog(log.id)}>
                {log.title}
              </button>{' '}
              <span className="muted">
                {formatLocalTime(log.createdAt)} {log.layer} {log.source}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
