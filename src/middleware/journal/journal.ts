import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { type RequestFacts, startFacts } from '../../http/request-facts.js';
import { requestHeader } from '../../http/request-header.js';
import type { Journal } from '../../sandbox/journal.js';
import type { Clock } from '../../shared/clock.js';
import { LOCATION_HEADER } from '../../shared/limits.js';

const LOCATION_HEADER_KEY = LOCATION_HEADER.toLowerCase();

export interface JournalDeps {
  journal: Journal;
  clock: Clock;
  /** The operation id of a request (`METHOD`, path), or undefined for paths that have none. Called per request. */
  operationOf: (method: string, path: string) => string | undefined;
  /** Paths under this prefix (the admin API) are not journaled: the journal shows the integration's traffic. */
  skipPrefix?: string;
  /**
   * A middleware run inside the journal's own pipeline layer, as the next one (fault injection): a layer of
   * Hono's compose costs a cached-token GET by id about 1% of its CPU. What it throws is answered through
   * `onError` before the entry is recorded, as Hono's compose answers what a layer of its own throws.
   */
  inner?: { handler: MiddlewareHandler; onError: ErrorHandler };
}

/**
 * Records every answered request in the bounded journal, with the facts its middlewares and handler noted. The
 * facts object becomes the entry, which the journal copies into its columns (src/sandbox/journal.ts), so nothing
 * of the request outlives it but a few strings; the ISO time is made only when the journal is read.
 */
export const journalRequests = ({
  journal,
  clock,
  operationOf,
  skipPrefix,
  inner,
}: JournalDeps): MiddlewareHandler => {
  const finish = (c: Context, facts: RequestFacts, timeMs: number, started: number): void => {
    // Authorized retail requests have it parsed already; only refused ones need the header read again.
    const location = c.get('locationId') ?? requestHeader(c, LOCATION_HEADER_KEY)?.trim();
    const { method, path } = c.req;
    journal.recordRequest(
      timeMs,
      method,
      path,
      facts.status ?? c.res.status,
      Math.round((performance.now() - started) * 1000) / 1000,
      c.get('requestId'),
      operationOf(method, path),
      location === '' ? undefined : location,
      facts,
    );
  };
  /** The inner middleware with the rest of the pipeline; a rejection can only be its own (Hono answers the rest). */
  const run = (c: Context, next: () => Promise<void>): Promise<unknown> => {
    if (inner === undefined) return next();
    try {
      return Promise.resolve(inner.handler(c, next));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  // Not async: one `then` on the rest of the pipeline costs less than an async frame awaiting it, per request.
  return (c, next) => {
    if (skipPrefix !== undefined && c.req.path.startsWith(skipPrefix))
      return inner === undefined ? next() : inner.handler(c, next);
    const timeMs = clock.now();
    const started = performance.now();
    const facts: RequestFacts = startFacts(c);
    return run(c, next).then(
      () => finish(c, facts, timeMs, started),
      (error: unknown) => {
        if (inner === undefined) {
          finish(c, facts, timeMs, started);
          throw error;
        }
        const settle = (response: Response): void => {
          c.res = response;
          finish(c, facts, timeMs, started);
        };
        const answer = inner.onError(error as Error, c);
        return answer instanceof Promise ? answer.then(settle) : settle(answer);
      },
    );
  };
};
