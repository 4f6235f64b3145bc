import type { Scope } from '@tapline/shared';
import type { Selectable } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  name: string;
  /** scrypt hash (auth/passwords.ts); null for users who cannot log in with a password. */
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

export interface TokensTable {
  id: string;
  user_id: string;
  scope: Scope;
  source_id: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Daemon-wide values shared by every daemon on the database (the token signing key). */
export interface SettingsTable {
  key: string;
  value: string;
}

export type UserRow = Selectable<UsersTable>;

export interface AuthTables {
  users: UsersTable;
  tokens: TokensTable;
  settings: SettingsTable;
}
