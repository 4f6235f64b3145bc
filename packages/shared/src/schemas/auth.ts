import { z } from 'zod';
import { Scope, wellFormed } from './common.js';

export const TokenRequest = z.object({
  email: z
    .string()
    .trim()
    .min(1, 'email must not be empty')
    .refine(...wellFormed('email')),
  password: z.string().min(1, 'password must not be empty'),
});
export const TokenResponse = z.object({ token: z.string(), expiresAt: z.string().nullable() });

/** The rule `taplined user add` and `user passwd` apply too; the upper bound keeps scrypt's input small. */
export const NewPassword = z
  .string()
  .min(8, 'the password must have at least 8 characters')
  .max(1024, 'the password must have at most 1024 characters');

/** `POST /auth/password`: the caller's own password. `currentPassword` may be left out only while the user has none. */
export const PasswordChange = z.object({
  currentPassword: z.string().min(1, 'currentPassword must not be empty').optional(),
  newPassword: NewPassword,
});

export const Me = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  tokenId: z.uuid(),
  scope: Scope,
  sourceId: z.uuid().nullable(),
});
export type Me = z.infer<typeof Me>;

/**
 * The database as `tapline status` shows it (docs/storage.md). Optional: an older daemon does not
 * send it. Cheap to answer: page counts and one index probe per source, never a count of traffic.
 */
export const StorageHealth = z.object({
  /** Everything the database takes on disk, its write-ahead log included. */
  bytes: z.number().int().nonnegative(),
  /** `createdAt` of the oldest entry; null when there is none. */
  oldestEntryAt: z.string().nullable(),
  /** `--retention` in milliseconds; null when off. */
  retentionMs: z.number().int().positive().nullable(),
  /** `--max-db-size` in bytes; null when off. */
  maxBytes: z.number().int().positive().nullable(),
});
export type StorageHealth = z.infer<typeof StorageHealth>;

/** `database`: the engine the daemon stores into; where it is stays private. */
export const Health = z.object({
  status: z.literal('ok'),
  version: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  storage: StorageHealth.optional(),
});
