import type { Clock } from '../shared/clock.js';
import type { RateLimitState } from './admin-schemas.js';

/** The scope of the token endpoints' counts, whose keys are source addresses; any other scope is a client id. */
export const ADDRESS_SCOPE = '';

/** The start of the fixed window of `windowMs` that holds `nowMs`: windows are aligned to the epoch (and the clock). */
export const windowStart = (nowMs: number, windowMs: number): number => nowMs - (nowMs % windowMs);

/** At most this many counted keys are listed: a flood of addresses must not make a listing unbounded. */
export const MAX_LISTED_COUNTS = 1000;

/** One key with requests counted in a window current at the time asked. */
export interface KeyCount {
  scope: string;
  key: string;
  /** Per limit, in the policies' order: requests counted in its current window. */
  used: number[];
}

export interface RateCounts {
  /** Retail scopes first, by scope; the address scope last; keys in the order first counted. At most `max`. */
  keys: KeyCount[];
  /** Keys counted beyond `max`. */
  more: number;
}

/** The limiter as the admin API reads and clears it: this process's, or under --workers the primary's. */
export interface RateCounter {
  counts(nowMs: number, max: number): RateCounts | Promise<RateCounts>;
  clear(): void | Promise<void>;
}

export interface RateLimitControl {
  view(): Promise<RateLimitState>;
  /** Every count starts again, as at the first start. */
  clear(): Promise<void>;
}

/** The rate limits as the admin API shows them; with `--rate-limit off`, none and nothing counted. */
export const rateLimitControl = (
  limiting: { policies: readonly { limit: number; windowMs: number }[]; counter: RateCounter } | undefined,
  clock: Clock,
): RateLimitControl => ({
  view: async () => {
    if (limiting === undefined) return { limits: [], counted: [], more: 0 };
    const { policies, counter } = limiting;
    const nowMs = clock.now();
    const { keys, more } = await counter.counts(nowMs, MAX_LISTED_COUNTS);
    const limits = policies.map(({ limit, windowMs }) => ({ limit, windowSeconds: windowMs / 1000 }));
    const resets = policies.map(({ windowMs }) =>
      new Date(windowStart(nowMs, windowMs) + windowMs).toISOString(),
    );
    return {
      limits,
      counted: keys.map(({ scope, key, used }) => ({
        ...(scope === ADDRESS_SCOPE ? { sourceAddress: key } : { clientId: scope, location: key }),
        windows: limits.map(({ limit, windowSeconds }, i) => {
          const count = used[i] ?? 0;
          return {
            limit,
            windowSeconds,
            used: count,
            remaining: Math.max(0, limit - count),
            resetsAt: resets[i]!,
          };
        }),
      })),
      more,
    };
  },
  clear: async () => {
    await limiting?.counter.clear();
  },
});
