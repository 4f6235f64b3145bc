import type { Request } from 'express';
import type { Logger } from 'pino';
import { addressOrPeer } from '../http/trust-proxy.js';

/**
 * Why a request was refused for who it is or what its token allows, as far as the daemon can
 * tell. A token whose signature fails proves nothing, so its claims (its id) are never trusted.
 */
export type AuthFailure =
  | 'missing'
  | 'malformed'
  | 'bad_algorithm'
  | 'bad_signature'
  | 'expired'
  | 'revoked'
  /** The token's row, or its user, no longer exists (deleted user, wiped database). */
  | 'unknown_token'
  | 'bad_credentials'
  | 'scope_denied'
  | 'source_denied'
  | 'not_owner';

export interface AuthAudit {
  readonly reason: AuthFailure;
  /** The token's id (its `jti`) once its signature verified; null before that. */
  readonly tokenId: string | null;
}

/**
 * The audit trail: one warn line per refused authentication (400/401) or authorization (403),
 * with where it came from. Never the token, the password or the email given.
 */
export function logAuthFailure(
  logger: Logger,
  req: Pick<Request, 'ip' | 'socket' | 'method' | 'path'>,
  status: number,
  audit: AuthAudit,
): void {
  logger.warn(
    {
      event: status === 403 ? 'access_denied' : 'authentication_failed',
      status,
      reason: audit.reason,
      tokenId: audit.tokenId,
      // The client by --trust-proxy: the peer, or the address a trusted proxy forwarded.
      remoteAddress: addressOrPeer(req.ip, req.socket.remoteAddress) ?? null,
      method: req.method,
      path: req.path,
    },
    status === 403 ? 'access denied' : 'authentication failed',
  );
}
