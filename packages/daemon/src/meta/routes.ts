import { contract } from '@tapline/shared';
import type { Router } from 'express';
import type { Deps } from '../deps.js';
import { mount } from '../http/mount.js';
import { openApiDocument } from './openapi.js';

export function metaRoutes(router: Router, deps: Deps): void {
  mount(router, deps, contract.health, () => Promise.resolve({ status: 'ok' as const, version: deps.config.version }));
  let document: ReturnType<typeof openApiDocument> | undefined;
  mount(router, deps, contract.openapi, () => Promise.resolve((document ??= openApiDocument(deps.config.version))));
}
