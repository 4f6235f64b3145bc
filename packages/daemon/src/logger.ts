import pino, { type Logger } from 'pino';

/** Structured logs to stderr (stdout carries only the `listening on` line and admin output). */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { name: 'taplined' },
      redact: {
        paths: ['req.headers.authorization', '*.authorization', '*.token', '*.password', '*.secret'],
        censor: '[REDACTED]',
      },
    },
    pino.destination(2),
  );
}
