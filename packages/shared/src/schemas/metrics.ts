import { z } from 'zod';
import { uuidField } from './common.js';

/** `GET /metrics`: without `source`, every source the token may see; with it, that one source. */
export const MetricsQuery = z.object({ source: uuidField('source').optional() });
export type MetricsQuery = z.infer<typeof MetricsQuery>;

/** The Prometheus text exposition format that `GET /metrics` answers in. */
export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';
