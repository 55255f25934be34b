import type { Context, MiddlewareHandler } from 'hono';
import { oauthError } from '../../auth/oauth-token-route.js';
import type { Clock } from '../../shared/clock.js';
import { LarderError } from '../../shared/errors.js';
import type { RateLimiter, RatePolicy, RateVerdict } from './rate-windows.js';

export interface RateLimitDeps {
  limiter: RateLimiter;
  policies: readonly RatePolicy[];
  /** The windows follow this clock (the virtual one in sandbox mode). */
  clock: Clock;
  /** What is counted: the source address (token endpoints), or the client and location (retail). */
  keyOf: (c: Context) => string;
  /** Refusals on this path answer in RFC 6749's error shape (the OAuth token endpoint). */
  tokenPath: string;
}

/** `"20/1s"`: the policy names the RateLimit fields use. */
const policyName = (policy: RatePolicy) => `"${policy.limit}/${policy.windowMs / 1000}s"`;

/**
 * Both conventions, so any client finds the state it knows: the IETF fields (draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy` lists every limit, `RateLimit` gives the closest one's remaining and seconds to reset) and
 * the platform's (`X-RateLimit-Limit`, `-Remaining`, `-Reset` as a Unix time, for the closest limit).
 */
const stateHeaders = (policies: readonly RatePolicy[]) => {
  const names = policies.map(policyName);
  const policyHeader = policies.map((p, i) => `${names[i]};q=${p.limit};w=${p.windowMs / 1000}`).join(', ');
  return (verdict: RateVerdict, nowMs: number): Record<string, string> => {
    const policy = policies[verdict.policy]!;
    const reset = Math.max(0, Math.ceil((verdict.resetMs - nowMs) / 1000));
    return {
      'RateLimit-Policy': policyHeader,
      RateLimit: `${names[verdict.policy]};r=${verdict.remaining};t=${reset}`,
      'X-RateLimit-Limit': String(policy.limit),
      'X-RateLimit-Remaining': String(verdict.remaining),
      'X-RateLimit-Reset': String(Math.ceil(verdict.resetMs / 1000)),
    };
  };
};

/**
 * The platform's rate limits: every counted request carries the limit state; past a limit the answer is 429
 * with `Retry-After` (whole seconds, never 0) and the ErrorMessage code 42902 (42901 is the failed-login
 * throttle), or RFC 6749's `temporarily_unavailable` on the token endpoint.
 */
export const rateLimit = ({
  limiter,
  policies,
  clock,
  keyOf,
  tokenPath,
}: RateLimitDeps): MiddlewareHandler => {
  const headersOf = stateHeaders(policies);
  return async (c, next) => {
    const nowMs = clock.now();
    const taken = limiter.take(keyOf(c), nowMs);
    const verdict = taken instanceof Promise ? await taken : taken;
    const headers = headersOf(verdict, nowMs);
    if (!verdict.allowed) {
      headers['Retry-After'] = String(verdict.retryAfterSeconds);
      if (c.req.path === tokenPath)
        return oauthError(c, 429, 'temporarily_unavailable', 'Rate limit exceeded; retry later', headers);
      throw new LarderError('ERR_RATE_LIMIT_EXCEEDED', { headers });
    }
    for (const name in headers) c.header(name, headers[name]);
    await next();
  };
};
