import { contractRoutes } from '@tapline/shared/lean';
import type { Request, Router } from 'express';
import type { Deps } from '../deps.js';
import { mountTable } from '../http/table.js';
import { firstUse } from '../first-use.js';
import { loadOnce } from '../load-once.js';
import { storageHealth } from '../retention/status.js';

/**
 * The address and port this request reached, from the socket rather than the Host header: the
 * daemon's own listening address (the interface the client used, when it listens on all of them),
 * which a client cannot spoof into the document.
 */
function serverOf(req: Request): string {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

export function metaRoutes(router: Router, deps: Deps): void {
  // Requests that come together build the document once; one that failed is built again (load-once.ts).
  const document = loadOnce(() => firstUse.openapi().then((module) => module.openApiDocument(deps.config.version)));
  mountTable(router, deps, 'meta', {
    health: async () => ({
      status: 'ok' as const,
      version: deps.config.version,
      database: deps.dialect.backend,
      storage: await storageHealth(deps),
    }),
    openapi: {
      kind: 'raw',
      // Its module reads the contract's schemas: loaded by the first request for it (§20.23, §20.27).
      handler: async (_input, _ctx, req, res) => {
        res.status(contractRoutes.openapi.status).json({
          ...(await document()),
          servers: [{ url: serverOf(req), description: 'the daemon that served this document' }],
        });
      },
    },
  });
}
