import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import type { Composer } from '../ingest/compose.js';
import { type MountedRoute, mount } from '../http/mount.js';

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

export function ingestLogRoutes(router: Router, deps: Deps, compose: Composer): MountedRoute {
  return mount(router, deps, contract.ingestLog, ({ body }, ctx) =>
    compose(
      ctx,
      body.route === undefined && isTemplate(body.pathnameUrl) ? { ...body, route: body.pathnameUrl } : body,
    ),
  );
}
