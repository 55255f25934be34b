import type { Context, MiddlewareHandler } from 'hono';
import { LarderError } from '../../shared/errors.js';

interface InFlight {
  deadline: number;
  fail: (error: unknown) => void;
  /** The Node request, when served over a socket: whether its body had all arrived tells whose the delay was. */
  incoming: { readonly complete: boolean } | undefined;
}

/** How often the requests in flight are checked: the deadline fires up to this much late (a tenth of it, ≥ 10 ms). */
const sweepEvery = (timeoutMs: number): number => Math.max(10, Math.min(1000, Math.round(timeoutMs / 10)));

/**
 * Answers 503 (canRetry) when the handler has not produced a response within `timeoutMs`: a database that went
 * silent, or a pool with no free connection, costs a caller seconds, never an open-ended wait. The handler's
 * work is not cancelled (the store's own timeouts end it); its late result is dropped. Real time on purpose:
 * this bounds how long a caller waits, whatever the sandbox's virtual clock says.
 *
 * One sweep over the requests in flight rather than a timer and a Promise.race per request: with one deadline for
 * all, requests expire in the order they started, so a sweep stops at the first that has time left, and a request
 * costs a Set entry instead of a timer-list insert and removal (a measurable share of a cached GET by id).
 */
export interface RequestDeadline extends MiddlewareHandler {
  /**
   * Resolves once no request is in the pipeline, a turn after the last one settled, so that what it logs on the
   * way out (the access line, a debug failure) is written by then: a stop awaits it after closing the store, which
   * ends the requests still waiting on it, so that nothing is logged after "stopped".
   */
  idle(): Promise<void>;
}

export const requestDeadline = (
  timeoutMs: number,
  /** Requests served without a deadline (still counted for idle()). */
  untimed: (c: Context) => boolean = () => false,
): RequestDeadline => {
  const inFlight = new Set<InFlight>();
  let sweeper: NodeJS.Timeout | undefined;
  let untimedCount = 0;
  const idleWaiters: (() => void)[] = [];
  const settled = (): void => {
    if (idleWaiters.length === 0 || inFlight.size > 0 || untimedCount > 0) return;
    setImmediate(() => {
      if (inFlight.size > 0 || untimedCount > 0) return;
      for (const resolve of idleWaiters.splice(0)) resolve();
    });
  };
  const sweep = () => {
    const now = Date.now();
    for (const request of inFlight) {
      if (request.deadline > now) break;
      inFlight.delete(request);
      request.fail(
        // A body still arriving is the client's delay (a stalled upload): a 408, not the server's 503. The rest of
        // it may still come, so the connection closes after the answer, and says so (RFC 9110 §15.5.9).
        request.incoming !== undefined && !request.incoming.complete
          ? new LarderError('ERR_REQUEST_TIMEOUT', {
              message: `The request body did not arrive within ${timeoutMs / 1000} s.`,
              headers: { Connection: 'close' },
            })
          : new LarderError('ERR_UNAVAILABLE', {
              message: `The request did not complete within ${timeoutMs / 1000} s; retry shortly.`,
              headers: { 'Retry-After': '1' },
            }),
      );
    }
    if (inFlight.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
    settled();
  };
  // Not async: one promise per request, settled by the pipeline or by the sweep, whichever comes first.
  const handler: MiddlewareHandler = (c, next) => {
    if (untimed(c)) {
      untimedCount += 1;
      return next().finally(() => {
        untimedCount -= 1;
        settled();
      });
    }
    const request: InFlight = {
      deadline: Date.now() + timeoutMs,
      fail: () => {},
      incoming: (c.env as { incoming?: { complete: boolean } } | undefined)?.incoming,
    };
    inFlight.add(request);
    // Stopped by the sweep that finds nothing in flight, so an idle server holds no timer.
    sweeper ??= setInterval(sweep, sweepEvery(timeoutMs));
    return new Promise<void>((resolve, reject) => {
      request.fail = reject;
      next().then(
        () => {
          inFlight.delete(request);
          resolve();
          settled();
        },
        (error: unknown) => {
          inFlight.delete(request);
          reject(error);
          settled();
        },
      );
    });
  };
  return Object.assign(handler, {
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settled();
      }),
  });
};
