// What http/schemas.ts loads on first use: the contract with its schemas, and what is made of them.
import { ComposeRecord, parseComposeFast } from '@tapline/shared';
import type { z } from 'zod';

export * from '@tapline/shared';

/** Quicker checks that give what their schema gives for ordinary input, and undefined otherwise. */
export const QUICK_CHECKS: ReadonlyMap<z.ZodType, (value: unknown) => unknown> = new Map([
  [ComposeRecord, parseComposeFast],
]);
