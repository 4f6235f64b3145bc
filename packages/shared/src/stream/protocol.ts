import { z } from 'zod';

export { STREAM_EVENT, STREAM_RETRY_MS } from './events.js';

export const StreamCursor = z.object({ cursor: z.string().nullable() });
export type StreamCursor = z.infer<typeof StreamCursor>;
