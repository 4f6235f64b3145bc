import { z } from 'zod';
import { ComposeRecord } from './http-traffic.js';

/**
 * A field the Arkyn SDK sends JSON-encoded (`"{\"accept\":\"*\/*\"}"`, `"null"`): decoded before the
 * compose rules run, so redaction sees real objects. A value that is not a string goes to the
 * compose rule as it is, so a client that sends objects is served too.
 */
const encoded = <T extends z.ZodType>(name: string, kind: 'map' | 'body', inner: T) =>
  z
    .unknown()
    .transform((value, ctx) => {
      if (typeof value !== 'string') return value;
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a JSON-encoded ${kind === 'map' ? 'object' : 'value'}`,
        });
        return z.NEVER;
      }
      if (kind === 'map' && (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a JSON-encoded object` });
        return z.NEVER;
      }
      return parsed;
    })
    .pipe(inner)
    .meta({
      description: `JSON-encoded ${kind === 'map' ? 'object' : 'value'} (as the Arkyn SDK sends it), or the value itself`,
    });

const { requestHeaders, queryParams, responseHeaders, requestBody, responseBody } = ComposeRecord.shape;

/**
 * `POST /ingest-log` (extension): the body `@arkyn/server` sends. The compose fields, with the
 * header, query and body fields as JSON strings; after decoding, exactly the compose rules.
 */
export const IngestLog = ComposeRecord.extend({
  requestHeaders: encoded('requestHeaders', 'map', requestHeaders),
  queryParams: encoded('queryParams', 'map', queryParams),
  responseHeaders: encoded('responseHeaders', 'map', responseHeaders),
  requestBody: encoded('requestBody', 'body', requestBody),
  responseBody: encoded('responseBody', 'body', responseBody),
});
export type IngestLog = z.output<typeof IngestLog>;
