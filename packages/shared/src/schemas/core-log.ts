import { z } from 'zod';
import { Timestamp, wellFormed } from './common.js';

export const CoreLog = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string(),
  source: z.string(),
  layer: z.string(),
  stack: z.string(),
  createdAt: Timestamp,
  httpTrafficId: z.uuid().nullable(),
});
export type CoreLog = z.infer<typeof CoreLog>;

const text = (name: string, max: number) =>
  z
    .string()
    .max(max, `${name} must be at most ${max} characters`)
    .refine(...wellFormed(name))
    .optional();

export const CreateCoreLog = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'title must not be empty')
    .max(500, 'title must be at most 500 characters')
    .refine(...wellFormed('title')),
  description: text('description', 10_000),
  source: text('source', 200),
  layer: text('layer', 100),
  stack: text('stack', 100_000),
  httpTrafficId: z.uuid({ message: 'httpTrafficId must be a valid UUID' }).nullish(),
});
export type CreateCoreLog = z.input<typeof CreateCoreLog>;
