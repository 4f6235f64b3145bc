import { z } from 'zod';
import { Scope } from './common.js';

export const TokenRequest = z.object({
  email: z.string().trim().min(1, 'email must not be empty'),
  password: z.string().min(1, 'password must not be empty'),
});
export const TokenResponse = z.object({ token: z.string(), expiresAt: z.string().nullable() });

export const Me = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  tokenId: z.uuid(),
  scope: Scope,
  sourceId: z.uuid().nullable(),
});
export type Me = z.infer<typeof Me>;

/** `database`: the engine the daemon stores into; where it is stays private. */
export const Health = z.object({ status: z.literal('ok'), version: z.string(), database: z.enum(['sqlite', 'postgres']) });
