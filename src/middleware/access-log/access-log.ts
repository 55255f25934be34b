import type { MiddlewareHandler } from 'hono';
import { type RequestFacts, startFacts } from '../../http/request-facts.js';
import { sentLocation } from '../../http/request-header.js';
import { matchedRoute } from '../../http/route-pattern.js';
import type { Logger } from '../../shared/logger.js';

/** Client-chosen strings (a claimed client id, a location header, an unknown path) are cut to this in the log. */
const MAX_LOGGED_LENGTH = 128;
/** Probes of a load balancer, every few seconds: logged at debug so they do not drown the traffic. */
const PROBES = new Set(['/healthz', '/readyz']);

const bounded = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value.slice(0, MAX_LOGGED_LENGTH);

/**
 * One structured line per answered request: request id, method, route, status, error code, duration, client id
 * and location. It never reads the body, the query or the Authorization header, so no secret or token can reach
 * it; the client id comes from the facts the auth middlewares note (src/http/request-facts.ts).
 */
export const accessLog =
  ({ logger }: { logger: Logger }): MiddlewareHandler =>
  async (c, next) => {
    const started = performance.now();
    const facts: RequestFacts = startFacts(c);
    try {
      await next();
    } finally {
      const route = matchedRoute(c);
      // As the journal shows it: parsed already (ASCII) when authorized, else read as its sender wrote it.
      const location = bounded(c.get('locationId') ?? sentLocation(c));
      const fields = {
        requestId: c.get('requestId'),
        method: c.req.method,
        ...(route === undefined ? { path: bounded(c.req.path) } : { route }),
        // A reset connection (an injected fault) answered nothing: 0, as the journal says.
        status: facts.status ?? c.res.status,
        // `code` is always the ErrorMessage's number; the token endpoint's RFC 6749 codes have a field of their
        // own, so a typed log pipeline sees one type per field.
        ...(facts.code === undefined
          ? {}
          : typeof facts.code === 'number'
            ? { code: facts.code }
            : { oauthError: facts.code }),
        ...(facts.fault === undefined ? {} : { fault: facts.fault }),
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        ...(facts.clientId === undefined ? {} : { clientId: bounded(facts.clientId) }),
        ...(location === undefined ? {} : { location }),
      };
      if (PROBES.has(c.req.path)) logger.debug('request', fields);
      else logger.info('request', fields);
    }
  };
