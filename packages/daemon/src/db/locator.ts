import type { Backend } from './dialect.js';
import { ExitError } from '../exit-error.js';

/** `--db` read: a PostgreSQL connection string, or a SQLite file (`:memory:` for a private one). */
export type DatabaseLocator =
  | { readonly backend: 'sqlite'; readonly file: string }
  | {
      readonly backend: 'postgres';
      readonly url: string;
      readonly password: string | null;
      readonly description: DatabaseDescription;
    };

/** What the startup line and `/healthz` say about the database: never a user name or password. */
export interface DatabaseDescription {
  readonly backend: Backend;
  /** `host:port/database` for PostgreSQL, the file for SQLite. */
  readonly location: string;
}

/** A `--db` value that names no database taplined can open. The message never repeats the value. */
export class DatabaseLocatorError extends ExitError {
  constructor(message: string) {
    super(message, 2);
  }
}

const POSTGRES_SCHEMES = new Set(['postgres:', 'postgresql:']);

/** `postgres://` and `postgresql://` select PostgreSQL; anything else is a SQLite file path. */
export function parseLocator(value: string): DatabaseLocator {
  // A mistyped scheme (`postgress://`, `pg://`) is not a file name: opening it as one would
  // print the whole value, password included, in the "no such file" error.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^postgres(ql)?:\/\//i.test(value)) {
    throw new DatabaseLocatorError(
      '--db takes a postgres:// or postgresql:// URL or a SQLite file path; this value has another scheme',
    );
  }
  if (!/^postgres(ql)?:\/\//i.test(value)) return { backend: 'sqlite', file: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value may carry a password: the message names only what is wrong.
    throw new DatabaseLocatorError(
      '--db is not a valid PostgreSQL URL; the form is postgres://user:password@host:5432/database',
    );
  }
  if (!POSTGRES_SCHEMES.has(url.protocol))
    throw new DatabaseLocatorError('--db takes a postgres:// or postgresql:// URL or a SQLite file');
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database)
    throw new DatabaseLocatorError('--db names no database; the form is postgres://user:password@host:5432/database');
  // A host given as ?host=/run/postgresql (a Unix socket folder) leaves the URL's host empty.
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  return {
    backend: 'postgres',
    url: value,
    password: url.password ? decodeURIComponent(url.password) : null,
    description: { backend: 'postgres', location: `${host}:${port}/${database}` },
  };
}

export function describeLocator(locator: DatabaseLocator): DatabaseDescription {
  return locator.backend === 'sqlite' ? { backend: 'sqlite', location: locator.file } : locator.description;
}

/** An error message from the driver, with the password taken out wherever it appears. */
export function withoutSecret(message: string, secret: string | null): string {
  if (!secret) return message;
  return message.split(secret).join('***').split(encodeURIComponent(secret)).join('***');
}
