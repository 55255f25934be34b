import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { LOCATION_HEADER } from '../../shared/limits.js';

/**
 * Response headers a browser script may read: the request id, retry and auth hints, the rate-limit state, and
 * Date (a reset given as a Unix time is timed against the server's clock, which a sandbox may have moved).
 */
export const CORS_EXPOSED_HEADERS = [
  'Date',
  'X-Request-Id',
  'Retry-After',
  'WWW-Authenticate',
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
] as const;

/** Request headers the retail and auth routes read. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', LOCATION_HEADER, 'X-Request-Id'];

/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/**
 * `--cors ORIGIN[,ORIGIN]`: browser-based integrations on those origins may call the routes this is mounted on
 * (retail and auth; never the admin API). Hono's own middleware does the protocol; this fixes the policy. No
 * credentials mode: tokens travel in the Authorization header, never in cookies. `*` allows any origin.
 */
export const corsFor = (origins: readonly string[]): MiddlewareHandler =>
  cors({
    origin: origins.includes('*') ? '*' : [...origins],
    allowMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: PREFLIGHT_MAX_AGE,
  });
