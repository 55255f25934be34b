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
  /**
   * What is counted, in two parts so no string is built per request: '' and the source address (token
   * endpoints), or the client and the location (retail).
   */
  scopeOf: (c: Context) => string;
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
  const limits = policies.map((p) => String(p.limit));
  const policyHeader = policies.map((p, i) => `${names[i]};q=${p.limit};w=${p.windowMs / 1000}`).join(', ');
  /** Hands each field to `set`: the context's headers as a rule, an error's headers on a refusal. */
  return (verdict: RateVerdict, nowMs: number, set: (name: string, value: string) => void): void => {
    const reset = Math.max(0, Math.ceil((verdict.resetMs - nowMs) / 1000));
    set('RateLimit-Policy', policyHeader);
    set('RateLimit', `${names[verdict.policy]};r=${verdict.remaining};t=${reset}`);
    set('X-RateLimit-Limit', limits[verdict.policy]!);
    set('X-RateLimit-Remaining', String(verdict.remaining));
    set('X-RateLimit-Reset', String(Math.ceil(verdict.resetMs / 1000)));
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
  scopeOf,
  keyOf,
  tokenPath,
}: RateLimitDeps): MiddlewareHandler => {
  const setHeaders = stateHeaders(policies);
  return async (c, next) => {
    const setHeader = (name: string, value: string) => c.header(name, value);
    const nowMs = clock.now();
    const taken = limiter.take(scopeOf(c), keyOf(c), nowMs);
    const verdict = taken instanceof Promise ? await taken : taken;
    if (!verdict.allowed) {
      const headers: Record<string, string> = { 'Retry-After': String(verdict.retryAfterSeconds) };
      setHeaders(verdict, nowMs, (name, value) => {
        headers[name] = value;
      });
      if (c.req.path === tokenPath)
        return oauthError(c, 429, 'temporarily_unavailable', 'Rate limit exceeded; retry later', headers);
      throw new LarderError('ERR_RATE_LIMIT_EXCEEDED', { headers });
    }
    setHeaders(verdict, nowMs, setHeader);
    await next();
  };
};
