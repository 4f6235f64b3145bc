import type { Contract } from '@tapline/shared';
import type { Composer } from '../ingest/compose.js';
import type { JsonRoute } from '../http/table.js';

/**
 * `POST /ingest-log` (extension, docs/arkyn.md): where `@arkyn/server` reports, unchanged. Its
 * JSON-encoded fields are decoded by the `IngestLog` schema; from there it is a compose whose
 * source is the body's `trafficSourceId`: same scopes, limits, validation, redaction and answer.
 */
/**
 * The SDK sends the path before its parameters are filled in (`/users/:id`, docs/arkyn.md): that
 * is the client's template. A path without a parameter may be a literal one (`api.get('/users/42')`),
 * so it is left to inference (docs/statistics.md).
 */
const isTemplate = (pathname: string) => /(?:^|\/)(?::[A-Za-z_]|<[A-Za-z_]|\{[A-Za-z_])/.test(pathname);

export function ingestLogRoute(compose: Composer): JsonRoute<Contract['ingestLog']> {
  return {
    kind: 'json',
    validate: ({ body }) => compose.check(body),
    // `access`: the body's trafficSourceId, loaded and authorized.
    handler: ({ body }, { loaded: source }) =>
      compose.store(
        source,
        body.route === undefined && isTemplate(body.pathnameUrl) ? { ...body, route: body.pathnameUrl } : body,
      ),
  };
}
