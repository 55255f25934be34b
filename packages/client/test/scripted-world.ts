import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { LOGIN_PATH } from '../src/generated/types.js';
import { createClient } from '../src/index.js';

/**
 * A client against a scripted server on a virtual clock: a sleep is a timer, and timers fire in time order once
 * everything else has settled, so concurrent calls interleave as on a real clock and nothing waits in real time.
 * Math.random is fixed at 0.5, so the backoffs are exactly 1.5 s, 3 s, 6 s …; each call has 10 s (maxElapsedMs),
 * unless `retry: false`.
 */

export type Kind = 'login' | 'get';

export const world = (
  context: TestContext,
  /**
   * The answer to the n-th request of its kind; `takes(ms)` makes a request last that long. A request is aborted
   * (its timeout, the caller's signal) as fetch is: at once, whatever the answer was to be.
   */
  answer: (kind: Kind, n: number, takes: (ms: number) => Promise<void>) => Response | Promise<Response>,
  options: {
    timeoutMs?: number;
    /** Attempt timeouts and waits for a turn on the virtual clock (each recorded in `timeouts`), not the real one. */
    virtualTimeouts?: boolean;
    /** Requests run on when aborted, as with a fetch that ignores its signal (an in-process app's, say). */
    ignoresAbort?: boolean;
    /** No retries: a call then has its timeoutMs. */
    retry?: false;
  } = {},
) => {
  context.mock.method(Math, 'random', () => 0.5);
  let time = 0;
  const timers: { at: number; fire: () => void }[] = [];
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted();
      const onAbort = () => {
        timers.splice(timers.indexOf(timer), 1);
        reject(signal?.reason);
      };
      const timer = {
        at: time + ms,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  const timeouts: number[] = [];
  const timeoutSignal = (ms: number) => {
    timeouts.push(ms);
    const timeout = new AbortController();
    void sleep(ms).then(() => timeout.abort(new DOMException('The operation timed out.', 'TimeoutError')));
    return timeout.signal;
  };
  /** `time kind` of each request sent, and the token each get carried. */
  const sent: string[] = [];
  const carried: string[] = [];
  const count: Record<Kind, number> = { login: 0, get: 0 };
  const client = createClient({
    baseUrl: 'http://larder.test',
    clientId: 'id',
    clientSecret: 'secret',
    retry: options.retry ?? { maxElapsedMs: 10_000 },
    timeoutMs: options.timeoutMs,
    now: () => time,
    sleep,
    timeoutSignal: options.virtualTimeouts ? timeoutSignal : undefined,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const kind: Kind = String(input).endsWith(LOGIN_PATH) ? 'login' : 'get';
      sent.push(`${time} ${kind}`);
      const authorization = (init?.headers as Record<string, string> | undefined)?.['authorization'];
      if (authorization !== undefined) carried.push(authorization.replace('Bearer ', ''));
      const n = ++count[kind];
      if (options.ignoresAbort) return answer(kind, n, sleep);
      const signal = init?.signal ?? undefined;
      signal?.throwIfAborted();
      return new Promise<Response>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        (async () => answer(kind, n, sleep))().then(resolve, reject);
      });
    }) as typeof fetch,
  });
  /** Lets everything not waiting for a timer run on (a few rounds: reading a body takes several). */
  const settle = async () => {
    for (let round = 0; round < 5; round++) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  /** Runs the clock until every call given has settled: their outcomes, and when each settled. */
  const run = async (...calls: Promise<unknown>[]) => {
    const outcomes = calls.map((call) =>
      call.then(
        (value) => ({ value, error: undefined as unknown, at: time }),
        (error: unknown) => ({ value: undefined, error, at: time }),
      ),
    );
    let open = calls.length;
    for (const outcome of outcomes) void outcome.then(() => open--);
    for (;;) {
      await settle();
      if (open === 0) return Promise.all(outcomes);
      timers.sort((a, b) => a.at - b.at);
      const next = timers.shift();
      assert.ok(next !== undefined, 'calls still open with no timer to fire');
      time = Math.max(time, next.at);
      next.fire();
    }
  };
  const get = (signal?: AbortSignal) => client.purchaseOrders.get('po-1', { location: 'loc', signal });
  /** A call started `ms` into the run. */
  const later = async (ms: number) => {
    await sleep(ms);
    return get();
  };
  return { sent, carried, timeouts, count, run, get, later, sleep, now: () => time };
};

/** A login's answer: `token-n`, living `expiresIn` seconds. */
export const token = (n: number, expiresIn: number) =>
  Response.json({ token: { accessToken: `token-${n}`, expiresIn }, status: 'SUCCESS' });
/** An ErrorMessage answer with this status. */
export const status = (code: number, headers: Record<string, string> = {}) =>
  Response.json({ code: code * 100 + 1, message: `HTTP ${code}`, requestId: 'r' }, { status: code, headers });
/** The server refusing the token itself (expired, revoked). */
export const invalidToken = () => status(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
/** A request that never answers: it ends only when aborted (its timeout). */
export const hang = () => new Promise<Response>(() => {});
/** A connection dropped before the answer, as fetch reports it. */
export const dropped = () => {
  throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) });
};
/** The record a get asks for. */
export const order = (headers: Record<string, string> = {}) => Response.json({ id: 'po-1' }, { headers });

/** The status of the LarderApiError a call failed with. */
export const statusOf = (outcome: { error: unknown }) =>
  (outcome.error as { status?: number } | undefined)?.status;
