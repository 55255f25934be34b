/**
 * Reading how long to wait from a response's headers: `Retry-After` (RFC 9110: seconds or an HTTP date), the
 * IETF `RateLimit` field (`"policy";r=0;t=5`, draft-ietf-httpapi-ratelimit-headers), its older split form
 * (`RateLimit-Remaining` / `RateLimit-Reset` in seconds) and the common `X-RateLimit-Remaining` /
 * `X-RateLimit-Reset` (seconds, or a Unix time). Written by hand: no dependency-free library reads them all.
 */

const seconds = (text: string | null): number | undefined => {
  if (text === null) return undefined;
  const value = Number(text.trim());
  return Number.isFinite(value) && value >= 0 ? value : undefined;
};

/**
 * The server's "now" for the times it sends: its `Date` header when it has one, else ours. A point in time the
 * server names (a Unix-time reset, a Retry-After date) is measured against its own clock, so a skewed client
 * clock, or a sandbox running on a virtual one, still waits as long as the server means.
 */
const serverNow = (headers: Headers, now: number): number => {
  const date = Date.parse(headers.get('date') ?? '');
  return Number.isNaN(date) ? now : date;
};

/** Milliseconds to wait before retrying, from Retry-After; undefined when absent or unreadable. */
export const retryAfterMs = (headers: Headers, now: number): number | undefined => {
  const text = headers.get('retry-after');
  if (text === null) return undefined;
  const delta = seconds(text);
  if (delta !== undefined) return delta * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - serverNow(headers, now));
};

/** A reset given in seconds, or as a Unix time (a value too large to be a delay) on the server's clock. */
const resetMs = (value: number, headers: Headers, now: number): number =>
  value > 1_000_000_000 ? Math.max(0, value * 1000 - serverNow(headers, now)) : value * 1000;

/** What a response says of its rate limit: requests remaining (the closest limit's) and, when used up, ms to reset. */
export interface LimitState {
  remaining: number;
  /** Until the used-up limit resets; undefined when requests remain or the reset is not given. */
  exhaustedForMs: number | undefined;
}

/** The rate-limit fields of a response; undefined when it carries none. */
export const limitState = (headers: Headers, now: number): LimitState | undefined => {
  const field = headers.get('ratelimit');
  if (field !== null) {
    let state: LimitState | undefined;
    for (const item of field.split(',')) {
      const remaining = /;\s*r=(\d+)/.exec(item)?.[1];
      const reset = /;\s*t=(\d+)/.exec(item)?.[1];
      if (remaining === undefined) continue;
      const left = Number(remaining);
      const ms = left === 0 && reset !== undefined ? Number(reset) * 1000 : undefined;
      state = {
        remaining: Math.min(state?.remaining ?? left, left),
        exhaustedForMs: ms === undefined ? state?.exhaustedForMs : Math.max(state?.exhaustedForMs ?? 0, ms),
      };
    }
    if (state !== undefined) return state;
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
    const remaining = seconds(headers.get(`${prefix}remaining`));
    if (remaining === undefined) continue;
    const reset = seconds(headers.get(`${prefix}reset`));
    return {
      remaining,
      exhaustedForMs: remaining === 0 && reset !== undefined ? resetMs(reset, headers, now) : undefined,
    };
  }
  return undefined;
};

/**
 * Milliseconds until a rate limit this response says is used up resets; 0 when it is not used up, undefined when
 * the response carries no rate-limit fields.
 */
export const exhaustedForMs = (headers: Headers, now: number): number | undefined => {
  const state = limitState(headers, now);
  return state === undefined ? undefined : (state.exhaustedForMs ?? 0);
};
