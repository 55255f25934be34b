import type { ThrottleLimit } from '../../auth/failure-throttle.js';
import { parseThrottleLimit } from '../../auth/failure-throttle.js';
import {
  ADDRESS_SCOPE,
  type KeyCount,
  type RateCounter,
  type RateCounts,
  windowStart,
} from '../../sandbox/rate-limit-control.js';
import { type ProcessChannel, primaryCaller, servePrimary } from '../../shared/primary-rpc.js';

/** One limit: `limit` requests per fixed window of `windowMs`, windows aligned to the epoch (and the clock). */
export type RatePolicy = ThrottleLimit;

/** The platform's: 20 a second and 10,000 per 15 minutes. */
export const PLATFORM_RATE_LIMITS: readonly RatePolicy[] = [
  { limit: 20, windowMs: 1000 },
  { limit: 10_000, windowMs: 15 * 60_000 },
];

const MAX_POLICIES = 4;

/**
 * Which limit-state fields a counted response carries (`--rate-limit-headers`): the platform's own
 * X-RateLimit-* (what an integration meets in production, the default), the IETF draft's RateLimit and
 * RateLimit-Policy, or both.
 */
export const RATE_LIMIT_HEADER_STYLES = ['platform', 'ietf', 'both'] as const;
export type RateLimitHeaderStyle = (typeof RATE_LIMIT_HEADER_STYLES)[number];

/** `--rate-limit`: `platform`, `off`, or up to four `N/WINDOW` limits separated by commas (`5/s,100/15m`). */
export const parseRateLimit = (text: string): readonly RatePolicy[] | 'off' | undefined => {
  if (text === 'off') return 'off';
  if (text === 'platform') return PLATFORM_RATE_LIMITS;
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length > MAX_POLICIES) return undefined;
  const policies: RatePolicy[] = [];
  for (const part of parts) {
    const policy = parseThrottleLimit(part);
    if (policy === undefined || policy === 'off') return undefined;
    policies.push(policy);
  }
  return policies;
};

/** Where a key stands after a request was counted (or refused): the limit closest to refusing it. */
export interface RateVerdict {
  allowed: boolean;
  /** Index into the policies of the closest limit (a refusing one when refused). */
  policy: number;
  remaining: number;
  /** Epoch ms when that limit's window ends. */
  resetMs: number;
  /** Refused: whole seconds until every exhausted window has ended (at least 1); else 0. */
  retryAfterSeconds: number;
}

/** Also read and cleared by the admin API (`/_larder/rate-limits`, and a sandbox reset). */
export interface RateLimiter extends RateCounter {
  /** Counts one request of `key` within `scope` at `nowMs` unless a limit refuses it. */
  take(scope: string, key: string, nowMs: number): RateVerdict | Promise<RateVerdict>;
}

/** In one process the answer is there at once: nothing is awaited on the request path. */
export interface LocalRateLimiter extends RateLimiter {
  /** The answer object is reused: read it before the next call. */
  take(scope: string, key: string, nowMs: number): RateVerdict;
  counts(nowMs: number, max: number): RateCounts;
  clear(): void;
}

/** Retail scopes (client ids) in order, the address scope last. */
const byScope = (a: string, b: string): number =>
  a === b ? 0 : a === ADDRESS_SCOPE ? 1 : b === ADDRESS_SCOPE ? -1 : a < b ? -1 : 1;

interface KeyWindows {
  starts: number[];
  counts: number[];
}

/**
 * Exact fixed-window counting per key. A refused request is not counted, so a client that waits for Retry-After
 * is served. Keys are bounded: past `maxKeys` distinct keys every count starts again (far more than a sandbox's
clients × locations; it only stops a flood of addresses from growing memory).
 */
export const createRateLimiter = (
  policies: readonly RatePolicy[],
  { maxKeys = 100_000 }: { maxKeys?: number } = {},
): LocalRateLimiter => {
  // Scope, then key: two lookups instead of a string built per request.
  const scopes = new Map<string, Map<string, KeyWindows>>();
  let size = 0;
  const verdict: RateVerdict = { allowed: true, policy: 0, remaining: 0, resetMs: 0, retryAfterSeconds: 0 };
  const n = policies.length;
  return {
    take: (scope, key, nowMs) => {
      let keys = scopes.get(scope);
      if (keys === undefined) {
        keys = new Map();
        scopes.set(scope, keys);
      }
      let windows = keys.get(key);
      if (windows === undefined) {
        if (size >= maxKeys) {
          // Past the bound, start again: a flood of addresses cannot grow memory.
          scopes.clear();
          keys = new Map();
          scopes.set(scope, keys);
          size = 0;
        }
        windows = { starts: new Array<number>(n).fill(-1), counts: new Array<number>(n).fill(0) };
        keys.set(key, windows);
        size++;
      }
      let allowed = true;
      let waitMs = 0;
      for (let i = 0; i < n; i++) {
        const { limit, windowMs } = policies[i]!;
        const start = windowStart(nowMs, windowMs);
        if (windows.starts[i] !== start) {
          windows.starts[i] = start;
          windows.counts[i] = 0;
        }
        if (windows.counts[i]! >= limit) {
          allowed = false;
          waitMs = Math.max(waitMs, start + windowMs - nowMs);
        }
      }
      let closest = 0;
      let closestRemaining = Number.POSITIVE_INFINITY;
      for (let i = 0; i < n; i++) {
        if (allowed) windows.counts[i]!++;
        const remaining = policies[i]!.limit - windows.counts[i]!;
        if (remaining < closestRemaining) {
          closest = i;
          closestRemaining = remaining;
        }
      }
      verdict.allowed = allowed;
      verdict.policy = closest;
      verdict.remaining = closestRemaining;
      verdict.resetMs = windows.starts[closest]! + policies[closest]!.windowMs;
      verdict.retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil(waitMs / 1000));
      return verdict;
    },
    counts: (nowMs, max) => {
      const starts = policies.map(({ windowMs }) => windowStart(nowMs, windowMs));
      // A window that is not the current one is over (or, the clock moved back, not begun): nothing counts.
      const current = (windows: KeyWindows): boolean => {
        for (let i = 0; i < n; i++)
          if (windows.starts[i] === starts[i] && windows.counts[i]! > 0) return true;
        return false;
      };
      const listed: KeyCount[] = [];
      let more = 0;
      // Keys in the order first counted, not sorted: past a flood of addresses (up to maxKeys) a listing stays a
      // walk of the map, where sorting them all held the event loop for 40-70 ms.
      for (const scope of [...scopes.keys()].sort(byScope))
        for (const [key, windows] of scopes.get(scope)!) {
          if (!current(windows)) continue;
          if (listed.length === max) more++;
          else
            listed.push({
              scope,
              key,
              used: starts.map((start, i) => (windows.starts[i] === start ? windows.counts[i]! : 0)),
            });
        }
      return { keys: listed, more };
    },
    clear: () => {
      scopes.clear();
      size = 0;
    },
  };
};

const SERVICE = 'rate-limit';

/** A worker's limiter under `--workers N`: the primary counts for every worker. */
export const clusterRateLimiter = (channel: ProcessChannel): RateLimiter => {
  const call = primaryCaller(channel, SERVICE);
  return {
    take: async (scope, key, nowMs) => (await call('take', [scope, key, nowMs])) as RateVerdict,
    counts: async (nowMs, max) => (await call('counts', [nowMs, max])) as RateCounts,
    clear: async () => {
      await call('clear');
    },
  };
};

/** The primary's side: the one limiter every worker asks. */
export const serveClusterRateLimiter = (
  onMessage: Parameters<typeof servePrimary>[0],
  policies: readonly RatePolicy[],
): void => {
  const limiter = createRateLimiter(policies);
  servePrimary(onMessage, SERVICE, {
    take: (arg) => {
      const [scope, key, nowMs] = arg as [string, string, number];
      return limiter.take(scope, key, nowMs);
    },
    counts: (arg) => {
      const [nowMs, max] = arg as [number, number];
      return limiter.counts(nowMs, max);
    },
    clear: () => limiter.clear(),
  });
};
