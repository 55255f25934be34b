import { LarderApiError, LarderClientError } from './errors.js';
import type { AuthenticationResponse, ErrorMessage } from './generated/types.js';
import { abortable, type HttpAnswer, type Transport } from './transport.js';

/** A token is renewed only in its final minute: the platform asks for one token a day, shared by all locations. */
export const REFRESH_BEFORE_EXPIRY_MS = 60_000;

/**
 * How early a token of this lifetime is renewed: its final minute, or its final tenth when it lives less than
 * ten minutes (a sandbox's short `--token-ttl`), so a short token is still used rather than renewed every call.
 */
const renewBefore = (lifetimeMs: number): number => Math.min(REFRESH_BEFORE_EXPIRY_MS, lifetimeMs / 10);

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
  /** When it expires, counted from when its login was sent: until then it serves should a renewal fail. */
  expiresAt: number;
}

/**
 * One access token for every location and every concurrent call: cached, renewed only in its final minute, and
 * fetched by one login however many calls need it at once (single flight). A login ends by the deadline of the
 * calls waiting for it: the earliest, so a call that joins a login bounded by an earlier call's deadline gets that
 * login's outcome, a failure too, though it had more time.
 *
 * A renewal while the token is still good (early renewal) is optional: one attempt, sent only if it can go at
 * once, within half of what is left of the call's budget. Should it fail in any way (a refusal of the credentials
 * too: the server still judges the token it issued), the call goes on with the token it has, and the next renewal
 * is tried by a call after a backoff (1–2 s, 2–4 s …, as between retries), not by every call meanwhile.
 */
export const createTokenSource = (options: {
  transport: Transport;
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  now: () => number;
  /** How long to leave the token be after this many failed early renewals in a row. */
  backoff: (failures: number) => number;
}) => {
  let cached: Cached | undefined;
  /**
   * The login in flight, the deadlines of the callers waiting for it (one each; Infinity for none), how to stop it
   * once none waits any more, and whether it is an early renewal (`once`: a single attempt).
   */
  let pending:
    | { promise: Promise<Cached>; deadlines: number[]; controller: AbortController; once: boolean }
    | undefined;
  /** Early renewals failed in a row, and when the next may be tried: until then the token still good serves. */
  let renewals = { failed: 0, next: Number.NEGATIVE_INFINITY };

  const login = async (signal: AbortSignal, deadline: () => number, once: boolean): Promise<Cached> => {
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
      once,
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
    return {
      accessToken: token.accessToken,
      renewAt: sent + lifetimeMs - renewBefore(lifetimeMs),
      expiresAt: sent + lifetimeMs,
    };
  };

  /** The login in flight, joined with this deadline, or a new one (an early renewal when `once`). */
  const join = (deadline: number, once: boolean) => {
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
      once,
      promise: login(controller.signal, () => Math.min(...deadlines), once)
        .then(
          (fresh) => {
            cached = fresh;
            renewals = { failed: 0, next: Number.NEGATIVE_INFINITY };
            return fresh;
          },
          (error: unknown) => {
            if (once) {
              renewals.failed++;
              renewals.next = options.now() + options.backoff(renewals.failed);
            }
            throw error;
          },
        )
        .finally(() => {
          if (pending === flight) pending = undefined;
        }),
    };
    // Every caller may have given up meanwhile: a failure nobody awaits is not an unhandled rejection.
    flight.promise.catch(() => {});
    pending = flight;
    return flight;
  };

  /** The flight's token, for a caller with this deadline. */
  const wait = async (
    flight: NonNullable<typeof pending>,
    deadline: number,
    signal: AbortSignal | undefined,
  ) => {
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
  };

  return {
    /** The token; a login it needs ends by `deadline` (epoch ms), or by an earlier caller's. */
    token: async (signal?: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<Cached> => {
      // Twice at most: a caller left without a good token by an early renewal's one failed attempt logs in again.
      for (let renewalFailed = false; ; renewalFailed = true) {
        signal?.throwIfAborted();
        const held = cached;
        const now = options.now();
        if (held !== undefined && now < held.renewAt) return held;
        const good = held !== undefined && now < held.expiresAt;
        if (good && now < renewals.next) return held;
        // An early renewal takes at most half of what is left: the call keeps the rest to go on without it.
        const bound = good ? now + (deadline - now) / 2 : deadline;
        const flight = join(bound, good);
        try {
          return await wait(flight, bound, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          // Unless another call's 401 refused it meanwhile, or it expired while the renewal ran.
          if (good && cached === held && options.now() < held.expiresAt) return held;
          if (!flight.once || renewalFailed) throw error;
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
