// The method, protocol and level vocabularies of a traffic record. Their own module, imported by
// the record schemas and by the filter parser, which the schemas in turn use for `q`.

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export const PROTOCOLS = ['HTTP', 'HTTPS'] as const;
export const LEVELS = ['INFO', 'WARNING', 'FATAL'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export type Level = (typeof LEVELS)[number];
