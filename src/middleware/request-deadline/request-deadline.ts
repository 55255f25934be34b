import type { MiddlewareHandler } from 'hono';
import { LarderError } from '../../shared/errors.js';

/**
 * Answers 503 (canRetry) when the handler has not produced a response within `timeoutMs`: a database that went
 * silent, or a pool with no free connection, costs a caller seconds, never an open-ended wait. The handler's
 * work is not cancelled (the store's own timeouts end it); its late result is dropped. Real time on purpose:
 * this bounds how long a caller waits, whatever the sandbox's virtual clock says.
 */
export const requestDeadline =
  (timeoutMs: number): MiddlewareHandler =>
  async (_c, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new LarderError('ERR_UNAVAILABLE', {
              message: `The request did not complete within ${timeoutMs / 1000} s; retry shortly.`,
              headers: { 'Retry-After': '1' },
            }),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
