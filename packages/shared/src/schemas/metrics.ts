import { z } from 'zod';
import { uuidField } from './common.js';

/** `GET /metrics`: without `source`, every source the token may see; with it, that one source. */
export const MetricsQuery = z.object({ source: uuidField('source').optional() });
export type MetricsQuery = z.infer<typeof MetricsQuery>;
