import type { MiddlewareHandler } from 'hono';
import { startFacts } from '../../http/request-facts.js';
import { matchedRoute } from '../../http/route-pattern.js';
import type { Metrics } from '../../shared/metrics.js';

export interface MeasureDeps {
  metrics: Metrics;
  /** The API operation id of a request, or undefined (the route pattern labels it then). */
  operationOf: (method: string, path: string) => string | undefined;
  /** Operations that hand out access tokens (login, OAuth token). */
  tokenOperations: ReadonlySet<string>;
}

/**
 * Counts and times every answered request by operation and status, tokens issued and refused, and 429 refusals
 * by error code. Labels come from fixed sets (operation ids, route patterns, statuses), never from the raw path,
 * so a scan of random URLs cannot grow the series without bound.
 */
export const measureRequests =
  ({ metrics, operationOf, tokenOperations }: MeasureDeps): MiddlewareHandler =>
  async (c, next) => {
    const started = performance.now();
    const facts = startFacts(c);
    try {
      await next();
    } finally {
      const operation =
        operationOf(c.req.method, c.req.path) ??
        matchedRoute(c) ??
        // A CORS preflight the CORS middleware answered: a browser's, before its call, not a stray path.
        (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined
          ? 'preflight'
          : 'unmatched');
      // A reset connection (an injected fault) answered nothing: counted as status 0, as the journal says.
      const status = String(facts.status ?? c.res.status);
      metrics.requests.inc({ operation, method: c.req.method, status });
      metrics.requestDuration.observe({ operation, status }, (performance.now() - started) / 1000);
      if (tokenOperations.has(operation)) {
        if (c.res.status === 200) metrics.tokensIssued.inc({ operation });
        else metrics.tokenFailures.inc({ operation, status });
      }
      if (c.res.status === 429)
        metrics.refusals.inc({ code: String(facts.larderCode ?? facts.code ?? 'none') });
    }
  };
