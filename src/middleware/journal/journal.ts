import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { RequestFacts } from '../../http/request-facts.js';
import { requestHeader } from '../../http/request-header.js';
import type { Journal } from '../../sandbox/journal.js';
import type { Clock } from '../../shared/clock.js';
import { LOCATION_HEADER } from '../../shared/limits.js';

const LOCATION_HEADER_KEY = LOCATION_HEADER.toLowerCase();

export interface JournalDeps {
  journal: Journal;
  clock: Clock;
  /** The operation id of the route that answered (`METHOD /path/:param`), or undefined for routes that have none. */
  operations: ReadonlyMap<string, string>;
  /** Paths under this prefix (the admin API) are not journaled: the journal shows the integration's traffic. */
  skipPrefix?: string;
}

const operationOf = (c: Context, operations: ReadonlyMap<string, string>): string | undefined =>
  operations.get(`${c.req.method} ${routePath(c)}`);

/** Records every answered request in the bounded journal, with the facts its middlewares and handler noted. */
export const journalRequests =
  ({ journal, clock, operations, skipPrefix }: JournalDeps): MiddlewareHandler =>
  async (c, next) => {
    if (skipPrefix !== undefined && c.req.path.startsWith(skipPrefix)) return next();
    const timeMs = clock.now();
    const started = performance.now();
    const facts: RequestFacts = {};
    c.set('facts', facts);
    try {
      await next();
    } finally {
      const location = requestHeader(c, LOCATION_HEADER_KEY)?.trim();
      const operation = operationOf(c, operations);
      journal.record({
        time: new Date(timeMs).toISOString(),
        timeMs,
        method: c.req.method,
        path: c.req.path,
        ...(operation === undefined ? {} : { operation }),
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        ...(location === undefined || location === '' ? {} : { location }),
        requestId: c.get('requestId'),
        ...facts,
      });
    }
  };
