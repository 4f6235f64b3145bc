/**
 * The contract's closed sets of values, apart from its zod schemas: the capture code (and so
 * `@tapline/node`) needs the methods at run time without carrying zod.
 */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export const PROTOCOLS = ['HTTP', 'HTTPS'] as const;
export const LEVELS = ['INFO', 'WARNING', 'FATAL'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type Level = (typeof LEVELS)[number];
