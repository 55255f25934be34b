import type { Clock } from '../shared/clock.js';
import { isPlausibleClientId } from './client-authenticator.js';

/**
 * Counts failed authentications per key (client id, source address) in a sliding window, per instance: with
 * N instances an attacker gets at most N × limit tries per window, which is immaterial against 256-bit secrets
 * and still stops accidental hammering.
 */
export interface FailureThrottle {
  /** Seconds until every key is below the limit again; undefined when none is at it. */
  retryAfterSeconds(keys: readonly string[]): number | undefined;
  recordFailure(keys: readonly string[]): void;
  /** Keys held now (bounded by maxKeys; keys whose failures all left the window are swept). */
  size(): number;
  /** Forgets every failure: a sandbox reset goes back to the first start, the throttle included. */
  clear(): void;
}

export interface FailureThrottleOptions {
  clock: Clock;
  limit?: number;
  windowMs?: number;
  /** Bounds memory under a flood of distinct keys; the oldest keys are forgotten first. */
  maxKeys?: number;
}

/** A throttle that never refuses (`--login-throttle off`). */
export const noThrottle: FailureThrottle = {
  retryAfterSeconds: () => undefined,
  recordFailure: () => {},
  size: () => 0,
  clear: () => {},
};

export const createFailureThrottle = ({
  clock,
  limit = 10,
  windowMs = 60_000,
  maxKeys = 100_000,
}: FailureThrottleOptions): FailureThrottle => {
  // Per key, the times of the failures inside the window, oldest first (at most `limit`).
  const failures = new Map<string, number[]>();

  const recent = (key: string, now: number): number[] | undefined => {
    const times = failures.get(key);
    if (times === undefined) return undefined;
    while (times.length > 0 && (times[0] as number) <= now - windowMs) times.shift();
    // Failures "after" now happened before the virtual clock was set back: they no longer count, or a client
    // would wait out a window that starts in the future.
    while (times.length > 0 && (times[times.length - 1] as number) > now) times.pop();
    if (times.length === 0) failures.delete(key);
    return times.length === 0 ? undefined : times;
  };

  // Keys are re-inserted on every failure, so iteration order is least recently failed first: the sweep stops at
  // the first key with a failure still in the window, so its cost is the number of keys it forgets.
  const sweep = (now: number): void => {
    for (const [key, times] of failures) {
      if ((times[times.length - 1] ?? Number.NEGATIVE_INFINITY) > now - windowMs) return;
      failures.delete(key);
    }
  };

  const forgetOldest = (): void => {
    for (const key of failures.keys()) {
      if (failures.size <= maxKeys) return;
      failures.delete(key);
    }
  };

  return {
    retryAfterSeconds: (keys) => {
      const now = clock.now();
      let waitMs = 0;
      for (const key of keys) {
        const times = recent(key, now);
        if (times !== undefined && times.length >= limit)
          waitMs = Math.max(waitMs, (times[0] as number) + windowMs - now);
      }
      return waitMs > 0 ? Math.ceil(waitMs / 1000) : undefined;
    },
    recordFailure: (keys) => {
      const now = clock.now();
      sweep(now);
      for (const key of keys) {
        const times = recent(key, now) ?? [];
        times.push(now);
        if (times.length > limit) times.shift();
        failures.delete(key);
        failures.set(key, times);
      }
      if (failures.size > maxKeys) forgetOldest();
    },
    size: () => failures.size,
    clear: () => failures.clear(),
  };
};

/**
 * Failures count against the client id and source address together: one party's wrong secrets, from its own
 * address, never lock out the client's owner elsewhere, and failures for other client ids never refuse anyone's
 * correct credentials. Secrets are 256-bit, so the throttle stops hammering, not guessing.
 */
export const throttleKeys = (clientId: string, address: string | undefined): string[] => [
  // An id no client can have counts against the address alone: a key's size never depends on the caller.
  `${address ?? '-'}\n${isPlausibleClientId(clientId) ? clientId : '\u0000'}`,
];

export interface ThrottleLimit {
  limit: number;
  windowMs: number;
}

const UNITS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, m: 60_000, h: 3_600_000 };

/** `--login-throttle`: `10/min` (failures per window per client and address), `5/30s`, or `off`. */
export const parseThrottleLimit = (text: string): ThrottleLimit | 'off' | undefined => {
  if (text === 'off') return 'off';
  const match = /^(\d{1,6})\/(\d{0,6})(s|sec|m|min|h)$/.exec(text);
  if (match === null) return undefined;
  const limit = Number(match[1]);
  const windowMs = Number(match[2] === '' ? 1 : match[2]) * UNITS[match[3]!]!;
  return limit >= 1 && windowMs >= 1000 ? { limit, windowMs } : undefined;
};
