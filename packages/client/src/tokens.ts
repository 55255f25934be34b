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
 * From this length a secret is masked wherever it is: it cannot turn up in other text by chance. A shorter one (a
 * test's `b`) would, inside ordinary words and ids, so it is masked only where it stands alone.
 */
const MASKED_ANYWHERE = 8;

/** A letter, digit or `_` on either side puts a short secret's match inside a word: that is not the secret. */
const alone = (secret: string) =>
  new RegExp(
    `(?<![\\p{L}\\p{M}\\p{N}_])${secret.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}(?![\\p{L}\\p{M}\\p{N}_])`,
    'gu',
  );

/**
 * The text with each secret masked, as it is and JSON-escaped: a server (or a proxy) that quotes the request in
 * its error, as validation frameworks do, must not put a credential into an error message.
 */
const hide = (text: string, secrets: readonly string[]): string =>
  secrets
    .filter((secret) => secret !== '')
    .flatMap((secret) => [JSON.stringify(secret).slice(1, -1), secret])
    .reduce(
      (shown, secret) =>
        secret.length >= MASKED_ANYWHERE
          ? shown.split(secret).join('***')
          : shown.replace(alone(secret), '***'),
      text,
    );

/**
 * Every string in a parsed body masked, a `requestId` excepted: the server's id for the request holds none of the
 * caller's secrets, and a user quotes it in a bug report. Names are left as they are (a body's shape stays what the
 * server sent), unless `names` (for the text the error shows of a body that is no ErrorMessage).
 */
const hideIn = (value: unknown, secrets: readonly string[], names = false): unknown => {
  if (typeof value === 'string') return hide(value, secrets);
  if (Array.isArray(value)) return value.map((item) => hideIn(item, secrets, names));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [
        names ? hide(name, secrets) : name,
        name === 'requestId' && typeof item === 'string' ? item : hideIn(item, secrets, names),
      ]),
    );
  return value;
};

/**
 * The error an answer stands for, naming its request: its ErrorMessage when it carries one; `secrets` the request
 * sent are masked. A JSON body's text is masked as parsed, so an escape (`\n`) next to a short secret does not hide
 * it from the mask.
 */
export const apiError = (answer: HttpAnswer, secrets: readonly string[] = []): LarderApiError => {
  let parsed: { value: unknown } | undefined;
  try {
    parsed = { value: JSON.parse(answer.text) };
  } catch {
    // Not JSON (a proxy's page): the status and text say what there is to say.
  }
  const shown =
    parsed === undefined ? undefined : (hideIn(parsed.value, secrets) as Partial<ErrorMessage> | null);
  const body =
    shown !== null && typeof shown === 'object' && typeof shown.message === 'string'
      ? (shown as ErrorMessage)
      : undefined;
  return new LarderApiError(
    answer.status,
    body,
    answer.headers.get('x-request-id') ?? undefined,
    parsed === undefined ? hide(answer.text, secrets) : JSON.stringify(hideIn(parsed.value, secrets, true)),
    // Masked too: an id or a page token the caller passed may, by mistake, be one of the secrets.
    { method: answer.method, url: hide(answer.url, secrets) },
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
