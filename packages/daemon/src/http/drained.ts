import type { Response } from 'express';

/**
 * Resolves once `res` can take more (drain) or is gone (close). Both listeners go once either
 * fires: a long answer waits many times on one socket.
 */
export function drained(res: Response): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
