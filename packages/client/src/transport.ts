import { LarderTimeoutError, LarderTransportError } from './errors.js';
import { exhaustedForMs, limitState, retryAfterMs } from './rate-limit.js';

/** Each setting absent or undefined takes its default. */
export interface RetryOptions {
  /** Attempts per request, the first included (default 5). */
  maxAttempts?: number | undefined;
  /** The first backoff; each later one doubles, plus up to as much again of jitter (default 1000 ms). */
  baseDelayMs?: number | undefined;
  /** The longest backoff between two attempts, before jitter (default 16,000 ms). `Retry-After` is never cut. */
  maxDelayMs?: number | undefined;
  /** Attempts and waits of one request end within this (default 60,000 ms): no retry would finish later. */
  maxElapsedMs?: number | undefined;
}

/** Every retry setting given (Required<RetryOptions> would still allow undefined). */
export type RetrySettings = { [K in keyof RetryOptions]-?: number };

export const DEFAULT_RETRY: RetrySettings = {
  maxAttempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 16_000,
  maxElapsedMs: 60_000,
};

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Rejects with the signal's reason when it aborts first. The work runs on (a login shared with other callers, a
 * fetch that ignores its signal), and how it ends then is let go: never an unhandled rejection.
 */
export const abortable = <T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
};

/** A signal that aborts `ms` from now, as AbortSignal.timeout: a test's may run on a virtual clock. */
export type TimeoutSignal = (ms: number) => AbortSignal;

export const realTimeoutSignal: TimeoutSignal = (ms) => AbortSignal.timeout(ms);

/**
 * The body as text, read so that the attempt ending first (its timeout, an abort) cancels it: a body that stalls
 * and does not heed the fetch's signal (an in-process app's stream) would otherwise stay locked by the read, and
 * its connection held. `response.text()` locks the stream where nothing can cancel it.
 */
const readText = async (response: Response, signal: AbortSignal): Promise<string> => {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const cancel = () => {
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
};

export interface TransportOptions {
  fetch: typeof fetch;
  retry: RetrySettings | false;
  timeoutMs: number;
  sleep: Sleep;
  /** Times attempts and waits for a turn: the two waits that are no sleep, since they end at an event or a time. */
  timeoutSignal: TimeoutSignal;
  now: () => number;
  random: () => number;
}

/** A whole answer: the body is read inside the attempt, so a body cut off is retried like a reset. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The request it answers, as sent (no headers or body): an error names the call that failed. */
  method: HttpRequest['method'];
  url: string;
}

export interface HttpRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal | undefined;
  /** Requests sharing a rate limit (one location's, or the login's): a limit used up holds them all back. */
  limit: string;
  /**
   * More headers, taken just before each attempt, after any wait: an access token may expire during one.
   * `deadline` is when the request's attempts and waits must be over (its waits only, without retries): a login it
   * needs ends by then too.
   */
  authorize?:
    | ((signal: AbortSignal | undefined, deadline: number) => Promise<Record<string, string>>)
    | undefined;
  /** A call sent again after a new login: when its `maxElapsedMs` began, and its answer should no time be left. */
  again?: { startedAt: number; answer: HttpAnswer } | undefined;
  /** Read at each step: the latest its attempts and waits may end, when sooner than its own `maxElapsedMs`. */
  deadline?: (() => number) | undefined;
  /**
   * Optional (an early renewal, while a good token can serve instead): one attempt, sent only if it can go at
   * once, with no wait for a hold or a turn.
   */
  once?: boolean | undefined;
}

/**
 * What fetch's cause says, alone, when it refuses one of the Fetch standard's "bad ports" (1, 6000, 6665–6669 …)
 * before connecting: undici's words. Detected rather than listed, so a fetch that does send there (a test double, an
 * in-process app) is never second-guessed.
 */
const FETCH_BAD_PORT = 'bad port';

/** fetch refused the URL's port: every attempt would be refused alike, so it is never retried. */
class RefusedPortError extends LarderTransportError {}

/** Worth another attempt, as ky and octokit retry them; Larder's ErrorMessage says `canRetry: "true"` for each. */
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

/** The server's own word wins: an ErrorMessage saying `canRetry: "false"` is final whatever its status. */
const retryRefused = (answer: HttpAnswer) => {
  try {
    return (JSON.parse(answer.text) as { canRetry?: unknown } | null)?.canRetry === 'false';
  } catch {
    return false;
  }
};

/** 429s that named their wait, retried without spending an attempt, per request (within maxElapsedMs too). */
const MAX_RATE_LIMITED = 100;

/** Added to a Retry-After: it is rounded to whole seconds, and our clock may run a little behind the server's. */
const RETRY_AFTER_MARGIN_MS = 100;

/**
 * Sends requests with a per-attempt timeout, retries 429 after `Retry-After` (or the rate-limit fields), 500/502/503/504
 * and transport failures with jittered exponential backoff (at least a second apart, as the platform asks), within a
 * bound on attempts and total time; never other statuses. A rate limit a response reports used up delays the next
 * request that shares it until the limit resets, so a well-paced client rarely sees a 429 at all.
 */
export const createTransport = (options: TransportOptions) => {
  const { retry, now } = options;
  /**
   * When each rate limit frees up again (epoch ms), and the hold's version: an answer to a request sent before
   * that version was set was counted before it, so it knows nothing of it.
   */
  const holds = new Map<string, { until: number; version: number }>();
  let versions = 0;
  /** Lengthens a hold, or with `replace` (an answer newer than the hold) sets or ends it whatever it was. */
  const hold = (limit: string, until: number, replace: boolean) => {
    const current = holds.get(limit);
    if (!replace && current !== undefined && current.until >= until) return;
    if (until <= now()) holds.delete(limit);
    else holds.set(limit, { until, version: ++versions });
  };

  /**
   * Per rate limit: requests in flight, and how many may be at once by the answer to the latest request sent
   * (`remaining`; undefined when answers carry no rate-limit fields). Used up (0, or a 429), it lets one request go
   * once the hold ends, and more as its answer tells: calls that waited out a hold take turns instead of all
   * going at once to be refused again. Written by hand: ky, octokit and p-queue pace by fixed rates, not by what
   * the server says remains.
   */
  const meters = new Map<
    string,
    { inFlight: number; allowance: number | undefined; sent: number; wake: (() => void)[] }
  >();
  let sends = 0;
  const meterOf = (limit: string) => {
    let meter = meters.get(limit);
    if (meter === undefined) {
      meter = { inFlight: 0, allowance: undefined, sent: 0, wake: [] };
      meters.set(limit, meter);
    }
    return meter;
  };
  /** Whether a request may go now; if so, and `take`, it is counted in flight at once, and its send number returned. */
  const turn = (limit: string, take: boolean): number | undefined => {
    const meter = meterOf(limit);
    if (meter.allowance !== undefined && meter.inFlight >= Math.max(1, meter.allowance)) return undefined;
    if (!take) return 0;
    meter.inFlight++;
    return ++sends;
  };
  /** Until another request of the limit is answered (or fails): its answer may let more go. */
  const nextAnswer = (limit: string, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const meter = meterOf(limit);
      const onAbort = () => {
        meter.wake = meter.wake.filter((wake) => wake !== done);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      meter.wake.push(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  /** A request of the limit is over: the newest-sent answer sets the allowance (none left after a 429). */
  const settle = (limit: string, sent: number, answer: HttpAnswer | undefined) => {
    const meter = meterOf(limit);
    meter.inFlight--;
    if (answer !== undefined && sent > meter.sent) {
      meter.sent = sent;
      const remaining = limitState(answer.headers, now())?.remaining;
      meter.allowance = answer.status === 429 ? (remaining ?? 0) : remaining;
    }
    const { wake } = meter;
    meter.wake = [];
    for (const done of wake) done();
  };

  const attempt = async (
    request: HttpRequest,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<HttpAnswer> => {
    const timeout = options.timeoutSignal(timeoutMs);
    const signal = request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]);
    const exchange = async (): Promise<HttpAnswer> => {
      const response = await options.fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        signal,
      });
      // An answer after the attempt ended (a fetch that ignored its signal) is nobody's: its body is cancelled so
      // that its connection is let go, not held until it is collected.
      if (signal.aborted) {
        response.body?.cancel().catch(() => {});
        throw signal.reason;
      }
      return {
        status: response.status,
        headers: response.headers,
        text: await readText(response, signal),
        method: request.method,
        url: request.url,
      };
    };
    try {
      // Raced against the signal, the body read too: a fetch (or a body) that ignores it, as an in-process app's
      // may, cannot hold the attempt past its timeout or an abort.
      return await abortable(exchange(), signal);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (timeout.aborted)
        throw new LarderTimeoutError(`${request.method} ${request.url}: no answer within ${timeoutMs} ms.`, {
          cause: error,
        });
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.message === FETCH_BAD_PORT)
        throw new RefusedPortError(
          `${request.method} ${request.url}: port ${new URL(request.url).port} is one fetch refuses to connect to (a "bad port" of the Fetch standard, blocked by browsers too; nothing was sent): serve it on another port`,
          { cause: error },
        );
      const detail = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new LarderTransportError(`${request.method} ${request.url}: ${detail}`, { cause: error });
    }
  };

  const backoff = (attempts: number, settings: RetrySettings) => {
    const delay = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempts - 1));
    return delay + options.random() * delay;
  };

  /**
   * The headers of an attempt that may go now, and its send number: no hold applies, the limit's meter has room,
   * and `authorize` had its say after any wait. A wait is looked at again after it ends (another call's 429 may
   * have lengthened the hold meanwhile), and after `authorize` (it may have meant a login, and a hold may have come
   * then: after that wait, it authorizes again, its turn kept unless a hold came meanwhile). The request is
   * counted in flight in the same step as the last look, so calls woken together cannot all pass it. Undefined
   * when the request has no time left before `end`, or when a `boxed` one (a retry, a call sent again, a login)
   * would have none once the hold ends: that gives up at once, before `authorize` spends a login on an attempt
   * that cannot go.
   */
  const ready = async (
    request: HttpRequest,
    end: () => number,
    boxed: boolean,
  ): Promise<{ headers: Record<string, string>; sent: number } | undefined> => {
    // How far the waits reached, counted even when `sleep` does not move `now` (a test's fake).
    let reached = now();
    /** True when it waited; undefined when a boxed request has no time left. */
    const waitForLimit = async (): Promise<boolean | undefined> => {
      for (let waited = false; ; waited = true) {
        reached = Math.max(reached, now());
        const budget = end() - reached;
        const held = (holds.get(request.limit)?.until ?? 0) - reached;
        if (budget <= 0) return undefined;
        if (boxed && held >= budget) return undefined;
        if (request.once && held > 0) return undefined;
        // A call's first send waits out a hold to the end of its budget at most, so a caller that calls again at
        // once is paced by the hold rather than refused in a loop; with no time left then, it does not go.
        const wait = Math.min(held, budget);
        if (wait <= 0) return waited;
        await options.sleep(wait, request.signal);
        reached += wait;
      }
    };
    /**
     * Until another request of the limit is answered, or the request's time is up (then false), timed as an
     * attempt's timeout is: not by `sleep`, which may move a virtual clock and return at once.
     */
    const nextTurn = async (): Promise<boolean> => {
      const timeout = options.timeoutSignal(Math.max(Math.ceil(end() - reached), 1));
      try {
        await nextAnswer(
          request.limit,
          request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]),
        );
        return true;
      } catch (error) {
        if (request.signal?.aborted || !timeout.aborted) throw error;
        return false;
      }
    };
    /** Waits out holds and the meter; with `take`, returns the send number once the request is counted in flight. */
    const clear = async (take: boolean): Promise<{ waited: boolean; sent: number } | undefined> => {
      for (let waited = false; ; waited = true) {
        const free = await waitForLimit();
        if (free === undefined) return undefined;
        if (free) waited = true;
        const sent = turn(request.limit, take);
        if (sent !== undefined) return { waited, sent };
        if (request.once || !(await nextTurn())) return undefined;
      }
    };
    const { authorize } = request;
    if (authorize === undefined) {
      const cleared = await clear(true);
      return cleared && { headers: request.headers, sent: cleared.sent };
    }
    if ((await clear(false)) === undefined) return undefined;
    const authorized = async () => ({
      ...request.headers,
      ...(await authorize(request.signal, end())),
    });
    let headers = await authorized();
    for (;;) {
      // The login may have taken what was left: then the attempt does not go either.
      const cleared = await clear(true);
      if (cleared === undefined) return undefined;
      if (!cleared.waited) return { headers, sent: cleared.sent };
      // It waited after taking its token, which may have expired meanwhile: it takes it again, keeping its turn.
      // Letting the turn go would wake every waiter, and calls that had all waited would hand it round for ever.
      try {
        headers = await authorized();
      } catch (error) {
        settle(request.limit, 0, undefined);
        throw error;
      }
      // Only a hold that came meanwhile (during a login, say), or a login that took the time left, sends it back.
      reached = Math.max(reached, now());
      const held = (holds.get(request.limit)?.until ?? 0) > reached;
      if (!held && reached < end()) return { headers, sent: cleared.sent };
      settle(request.limit, 0, undefined);
    }
  };

  const send = async (request: HttpRequest): Promise<HttpAnswer> => {
    // A header value fetch cannot send (a location with a line break) is the caller's mistake: a TypeError at
    // once, as fetch throws it, not a network failure retried for a minute.
    new Headers(request.headers);
    const started = request.again?.startedAt ?? now();
    // Without retries the whole call (its waits for a hold, a turn or a login, and its attempt) ends within its
    // timeoutMs, as a retried one does within maxElapsedMs: the attempt gets what the waits left.
    const budget = retry === false ? options.timeoutMs : retry.maxElapsedMs;
    /** When its attempts and waits must be over: its budget, or a caller's deadline when sooner (a login's). */
    const end = () => Math.min(started + budget, request.deadline?.() ?? Number.POSITIVE_INFINITY);
    // 429s that named their wait are the server pacing the client (calls at once past a limit take turns), not
    // failures: they spend no attempt of maxAttempts, only time, as octokit's throttling treats them. Their own
    // cap ends the loop against a clock that stands still.
    let rateLimited = 0;
    /**
     * Ends the request with the last attempt's answer, or its failure; undefined before the first (a call sent
     * again has the answer it had).
     */
    let giveUp: (() => HttpAnswer) | undefined;
    const { again } = request;
    if (again !== undefined) giveUp = () => again.answer;
    for (let attempts = 1; ; attempts++) {
      // A retry, a call sent again and a login for a call give up at once when a hold would take the time left.
      const boxed = retry !== false && (giveUp !== undefined || request.deadline !== undefined);
      const turn = await ready(request, end, boxed);
      if (turn === undefined) {
        if (giveUp !== undefined) return giveUp();
        throw new LarderTimeoutError(
          `${request.method} ${request.url}: not sent: ${request.once ? 'it could not go at once' : `no time left within the ${retry === false ? 'timeoutMs' : 'maxElapsedMs'} of the call it is for`}.`,
        );
      }
      const { headers, sent } = turn;
      // An attempt, the first too, gets what is left of the budget, at most timeoutMs. Whole milliseconds:
      // AbortSignal.timeout throws a RangeError for a fraction, which a caller's `now` may give.
      const timeoutMs = Math.min(options.timeoutMs, Math.max(Math.ceil(end() - now()), 1));
      const known = versions;
      let answer: HttpAnswer | undefined;
      let failure: unknown;
      try {
        answer = await attempt(request, headers, timeoutMs);
      } catch (error) {
        if (!(error instanceof LarderTransportError) || error instanceof RefusedPortError) throw error;
        failure = error;
      } finally {
        settle(request.limit, sent, answer);
      }
      // Everything sharing the limit waits, not just this request: a 429 asks for silence, not a pause, and it
      // holds even when this request gives up (its caller's next request must not come sooner).
      let silence: number | undefined;
      // A 429 saying how long to wait (`Retry-After`, or rate-limit fields naming the reset).
      let paced = false;
      if (answer?.status === 429) {
        const named = retryAfterMs(answer.headers, now()) ?? exhaustedForMs(answer.headers, now());
        paced = named !== undefined;
        silence =
          (named ?? (retry === false ? 1000 : backoff(attempts - rateLimited, retry))) +
          RETRY_AFTER_MARGIN_MS;
        hold(request.limit, now() + silence, false);
      } else if (answer !== undefined) {
        const exhausted = exhaustedForMs(answer.headers, now());
        // The newest word on the limit wins (requests remain: it is free now). An answer to a request sent before
        // the hold was set, such as a 200 overtaken by a concurrent 429, may lengthen it, never end or shorten it.
        const current = holds.get(request.limit);
        if (exhausted !== undefined)
          hold(request.limit, now() + exhausted, current === undefined || current.version <= known);
        if (!RETRIED_STATUSES.has(answer.status)) return answer;
      }
      if (answer !== undefined && retryRefused(answer)) return answer;
      giveUp = () => {
        if (answer !== undefined) return answer;
        throw failure;
      };
      if (retry === false || request.once) return giveUp();
      const pacedRetry = paced && rateLimited < MAX_RATE_LIMITED;
      const failed = attempts - rateLimited;
      if (!pacedRetry && failed >= retry.maxAttempts) return giveUp();
      if (silence !== undefined) {
        if (now() + silence > end()) return giveUp();
        if (pacedRetry) rateLimited++;
        continue;
      }
      let wait = backoff(failed, retry);
      // A 5xx's Retry-After is a floor for the backoff.
      const asked = answer === undefined ? undefined : retryAfterMs(answer.headers, now());
      if (asked !== undefined) wait = Math.max(wait, asked);
      if (now() + wait > end()) return giveUp();
      await options.sleep(wait, request.signal);
    }
  };
  return {
    send,
    /** The wait after this many failures in a row, as between retries (with the default settings when retry is off). */
    backoff: (failures: number) => backoff(failures, retry === false ? DEFAULT_RETRY : retry),
  };
};

export type Transport = ReturnType<typeof createTransport>;
