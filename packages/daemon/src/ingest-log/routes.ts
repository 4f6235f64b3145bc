import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import type { Composer } from '../http-traffic/compose.js';
import { type MountedRoute, mount } from '../http/mount.js';

/**
 * `POST /ingest-log` (extension, docs/arkyn.md): where `@arkyn/server` reports, unchanged. Its
 * JSON-encoded fields are decoded by the `IngestLog` schema; from there it is a compose whose
 * source is the body's `trafficSourceId`: same scopes, limits, validation, redaction and answer.
 */
export function ingestLogRoutes(router: Router, deps: Deps, compose: Composer): MountedRoute {
  return mount(router, deps, contract.ingestLog, ({ body }, ctx) => compose(ctx, body));
}
