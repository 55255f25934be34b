import { LarderApiError, LarderClientError } from './errors.js';
import type { AuthenticationResponse, ErrorMessage } from './generated/types.js';
import type { HttpAnswer, Transport } from './transport.js';

/** A token is renewed only in its final minute: the platform asks for one token a day, shared by all locations. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;

/**
 * How early a token of this lifetime is renewed: its final minute, or its final tenth when it lives less than
 * ten minutes (a sandbox's short `--token-ttl`), so a short token is still used rather than renewed every call.
 */
const renewBefore = (lifetimeMs: number): number => Math.min(REFRESH_BEFORE_EXPIRY_MS, lifetimeMs / 10);

/** Rejects with the signal's reason when it aborts first; the shared work itself goes on for other callers. */
export const abortable = <T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
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

/** A successful answer's JSON body; one that is not JSON is an error that names the request id. */
export const parseBody = <T>(answer: HttpAnswer, what: string): T => {
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new LarderClientError(
      `${what} answered ${answer.status} with a body that is not JSON (request ${answer.headers.get('x-request-id') ?? 'unknown'}).`,
    );
  }
};

/**
 * The text with each secret masked, as it is and JSON-escaped: a server (or a proxy) that quotes the request in
 * its error, as validation frameworks do, must not put a credential into an error message.
 */
const hide = (text: string, secrets: readonly string[]): string =>
  secrets
    .filter((secret) => secret !== '')
    .flatMap((secret) => [JSON.stringify(secret).slice(1, -1), secret])
    .reduce((shown, secret) => shown.split(secret).join('***'), text);

/** Every string in a parsed body masked; names and structure left as they are (a short secret may be in them). */
const hideIn = (value: unknown, secrets: readonly string[]): unknown => {
  if (typeof value === 'string') return hide(value, secrets);
  if (Array.isArray(value)) return value.map((item) => hideIn(item, secrets));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, hideIn(item, secrets)]));
  return value;
};

/** The error an answer stands for: its ErrorMessage when it carries one; `secrets` the request sent are masked. */
export const apiError = (answer: HttpAnswer, secrets: readonly string[] = []): LarderApiError => {
  let body: ErrorMessage | undefined;
  try {
    const parsed = hideIn(JSON.parse(answer.text), secrets) as Partial<ErrorMessage> | null;
    if (parsed !== null && typeof parsed === 'object' && typeof parsed.message === 'string')
      body = parsed as ErrorMessage;
  } catch {
    // Not JSON (a proxy's page): the status and text say what there is to say.
  }
  return new LarderApiError(
    answer.status,
    body,
    answer.headers.get('x-request-id') ?? undefined,
    hide(answer.text, secrets),
  );
};

/** One login's token: compared by identity, since a login may answer the same token string as the one before. */
export interface Cached {
  accessToken: string;
  /** When to renew it: before it expires by renewBefore(its lifetime). */
  renewAt: number;
}

/**
 * One access token for every location and every concurrent call: cached, renewed only in its final minute, and
 * fetched by one login however many calls need it at once (single flight). A login ends by the deadline of the
 * calls waiting for it: the earliest, so a call that joins a login bounded by an earlier call's deadline gets that
 * login's outcome, a failure too, though it had more time.
 */
export const createTokenSource = (options: {
  transport: Transport;
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  now: () => number;
}) => {
  let cached: Cached | undefined;
  /**
   * The login in flight, the deadlines of the callers waiting for it (one each; Infinity for none), and how to stop
   * it once none waits any more.
   */
  let pending: { promise: Promise<Cached>; deadlines: number[]; controller: AbortController } | undefined;

  const login = async (signal: AbortSignal, deadline: () => number): Promise<Cached> => {
    const sent = options.now();
    const answer = await options.transport.send({
      url: options.loginUrl,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        userAccessType: 'PLATFORM_MACHINE_CLIENT',
      }),
      signal,
      limit: 'login',
      deadline,
    });
    if (answer.status !== 200) throw apiError(answer, [options.clientSecret]);
    const token = parseBody<Partial<AuthenticationResponse> | null>(answer, 'The login')?.token;
    if (
      typeof token?.accessToken !== 'string' ||
      typeof token.expiresIn !== 'number' ||
      !(token.expiresIn > 0)
    )
      throw new LarderClientError(
        `The login answered 200 without a token (accessToken and expiresIn) (request ${answer.headers.get('x-request-id') ?? 'unknown'}).`,
      );
    // Counted from when the login was sent, so the token is never thought to live longer than it does.
    const lifetimeMs = token.expiresIn * 1000;
    return { accessToken: token.accessToken, renewAt: sent + lifetimeMs - renewBefore(lifetimeMs) };
  };

  /** The login in flight, joined with this deadline, or a new one. */
  const join = (deadline: number) => {
    if (pending !== undefined) {
      pending.deadlines.push(deadline);
      return pending;
    }
    const controller = new AbortController();
    // Its deadline is read at each step: a caller with an earlier one may join, and one may give up.
    const deadlines = [deadline];
    const flight = {
      controller,
      deadlines,
      promise: login(controller.signal, () => Math.min(...deadlines))
        .then((fresh) => {
          cached = fresh;
          return fresh;
        })
        .finally(() => {
          if (pending === flight) pending = undefined;
        }),
    };
    // Every caller may have given up meanwhile: a failure nobody awaits is not an unhandled rejection.
    flight.promise.catch(() => {});
    pending = flight;
    return flight;
  };

  return {
    /** The token; a login it needs ends by `deadline` (epoch ms), or by an earlier caller's. */
    token: async (signal?: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<Cached> => {
      signal?.throwIfAborted();
      if (cached !== undefined && options.now() < cached.renewAt) return cached;
      const flight = join(deadline);
      try {
        return await abortable(flight.promise, signal);
      } finally {
        flight.deadlines.splice(flight.deadlines.indexOf(deadline), 1);
        // The last caller to give up stops the login (and its backoff), so nothing runs on for nobody.
        if (flight.deadlines.length === 0 && signal?.aborted) {
          flight.controller.abort(signal.reason);
          if (pending === flight) pending = undefined;
        }
      }
    },
    /**
     * The server refused this login's token (expired or revoked): the next call logs in again, once for all
     * callers. A refusal of an older login's token, even one equal to the current one, leaves the current one be.
     */
    invalidate: (refused: Cached) => {
      if (cached === refused) cached = undefined;
    },
  };
};
