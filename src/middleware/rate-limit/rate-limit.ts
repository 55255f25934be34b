import type { Context, MiddlewareHandler, Next } from 'hono';
import { oauthErrorFrom } from '../../auth/oauth-token-route.js';
import { claimedClientId, clientIdFact, collectingFacts, noteFacts } from '../../http/request-facts.js';
import { type ResponseHeaders, requestHeader, responseHeaders } from '../../http/request-header.js';
import type { Clock } from '../../shared/clock.js';
import { LarderError } from '../../shared/errors.js';
import type { RateLimiter, RateLimitHeaderStyle, RatePolicy, RateVerdict } from './rate-windows.js';

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
  /** Which fields carry the limit state (default: the platform's). */
  headerStyle?: RateLimitHeaderStyle;
}

/** `"20/1s"`: the policy names the RateLimit fields use. */
const policyName = (policy: RatePolicy) => `"${policy.limit}/${policy.windowMs / 1000}s"`;

/**
 * The limit state in the platform's convention (`X-RateLimit-Limit`, `-Remaining`, `-Reset` as a Unix time, for
 * the closest limit), the IETF fields (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` lists every
 * limit, `RateLimit` gives the closest one's remaining and seconds to reset), or both. Each header costs a GET by
 * id about 1% of its CPU, which is why only the platform's are sent unless asked for.
 */
const stateHeaders = (policies: readonly RatePolicy[], style: RateLimitHeaderStyle) => {
  const ietf = style !== 'platform';
  const platform = style !== 'ietf';
  const names = policies.map(policyName);
  const limits = policies.map((p) => String(p.limit));
  const policyHeader = policies.map((p, i) => `${names[i]};q=${p.limit};w=${p.windowMs / 1000}`).join(', ');
  // The Unix-time reset changes once a window: its text is kept rather than made per request.
  let resetMs = -1;
  let resetText = '';
  let dateSecond = -1;
  let dateText = '';
  /** Hands each field to `target`: the Node response as a rule, an error's headers on a refusal. */
  return (verdict: RateVerdict, nowMs: number, target: ResponseHeaders): void => {
    if (verdict.resetMs !== resetMs) {
      resetMs = verdict.resetMs;
      resetText = String(Math.ceil(resetMs / 1000));
    }
    if (ietf) {
      const reset = Math.max(0, Math.ceil((resetMs - nowMs) / 1000));
      target.deferHeader('ratelimit-policy', policyHeader);
      target.deferHeader('ratelimit', `${names[verdict.policy]};r=${verdict.remaining};t=${reset}`);
    }
    if (platform) {
      target.deferHeader('x-ratelimit-limit', limits[verdict.policy]!);
      target.deferHeader('x-ratelimit-remaining', String(verdict.remaining));
      target.deferHeader('x-ratelimit-reset', resetText);
      // The reset is a time on the server's clock; on a virtual clock moved away from real time, `Date` says
      // that clock's now (Node's own says real time), so a client measures the wait as the server means it.
      if (Math.abs(nowMs - Date.now()) >= 1000) {
        const second = Math.floor(nowMs / 1000);
        if (second !== dateSecond) {
          dateSecond = second;
          dateText = new Date(second * 1000).toUTCString();
        }
        target.deferHeader('date', dateText);
      }
    }
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
  headerStyle = 'platform',
}: RateLimitDeps): MiddlewareHandler => {
  const setHeaders = stateHeaders(policies, headerStyle);
  const refuse = (c: Context, verdict: RateVerdict, nowMs: number): Promise<Response> => {
    // Refused before any handler names the client: the journal (and the report) learn it from the credentials.
    if (collectingFacts(c) && c.req.path === tokenPath) {
      const clientId = claimedClientId(requestHeader(c, 'authorization'));
      if (clientId !== undefined) noteFacts(c, { clientId: clientIdFact(clientId) });
    }
    const headers: Record<string, string> = { 'Retry-After': String(verdict.retryAfterSeconds) };
    setHeaders(verdict, nowMs, {
      deferHeader: (name, value) => {
        headers[name] = value;
      },
    });
    if (c.req.path === tokenPath)
      return Promise.resolve(
        oauthErrorFrom(
          c,
          new LarderError('ERR_RATE_LIMIT_EXCEEDED', {
            headers,
            message: 'Rate limit exceeded; retry later.',
          }),
        ),
      );
    return Promise.reject(new LarderError('ERR_RATE_LIMIT_EXCEEDED', { headers }));
  };
  const decide = (
    c: Context,
    next: Next,
    verdict: RateVerdict,
    nowMs: number,
  ): ReturnType<MiddlewareHandler> => {
    if (!verdict.allowed) return refuse(c, verdict, nowMs);
    setHeaders(verdict, nowMs, responseHeaders(c));
    return next();
  };
  // Not async: in one process the verdict is there at once, and an async wrapper costs a promise per request.
  return (c, next) => {
    const nowMs = clock.now();
    const taken = limiter.take(scopeOf(c), keyOf(c), nowMs);
    return taken instanceof Promise
      ? taken.then((verdict) => decide(c, next, verdict, nowMs))
      : decide(c, next, taken, nowMs);
  };
};
