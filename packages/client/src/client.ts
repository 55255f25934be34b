import {
  checkFunctions,
  checkSecret,
  checkUrl,
  checkWhole,
  HEADER_RULE,
  headerCarries,
  pathSegment,
  serverBase,
  trimSlash,
} from './checks.js';
import { LarderClientError } from './errors.js';
import {
  type InventoryHistoryLogEntry,
  type InventoryHistorySearchRequest,
  LOCATION_HEADER,
  LOGIN_PATH,
  MAX_PAGE_SIZE,
  type PurchaseOrder,
  type PurchaseOrdersSearchRequest,
  RECORD_KINDS,
} from './generated/types.js';
import { createSyncState, startingPoint, type Watermark } from './sync.js';
import { apiError, type Cached, createTokenSource, parseBody } from './tokens.js';
import {
  createTransport,
  DEFAULT_RETRY,
  type HttpAnswer,
  type RetryOptions,
  type RetrySettings,
  realSleep,
  realTimeoutSignal,
  type Sleep,
  type TimeoutSignal,
} from './transport.js';

/**
 * An option absent or undefined takes its default, here and in every options object of the client: a value that
 * may be undefined (an environment variable, a saved watermark) can be passed as it is.
 */
export interface ClientOptions {
  /**
   * The retail API's base URL (Larder: its URL, such as http://127.0.0.1:8080), or the interface's own, ending in
   * /v1 (http://127.0.0.1:8080/v1).
   */
  baseUrl: string;
  /**
   * Where the login operation is served from, when not from `baseUrl`: a host, or the interface's {auth_base_url}
   * (ending in /authentication/v1).
   */
  authBaseUrl?: string | undefined;
  clientId: string;
  clientSecret: string;
  /** Default: the global fetch. One that ignores its signal still ends at the attempt's timeout or an abort. */
  fetch?: typeof fetch | undefined;
  /** Retry settings, or false for none. */
  retry?: RetryOptions | false | undefined;
  /**
   * Per attempt, reading the body included (default 30,000 ms). Without retries it bounds the whole call from its
   * start, as maxElapsedMs does a retried one: its waits (a hold, its turn, its login) and its attempt.
   */
  timeoutMs?: number | undefined;
  /** How the client waits between attempts (default setTimeout): a test can move a virtual clock instead. */
  sleep?: Sleep | undefined;
  /** The client's clock for token lifetimes and rate-limit resets (default Date.now). */
  now?: (() => number) | undefined;
  /**
   * Makes the signal that ends an attempt, or a wait for a turn, `ms` from now (default AbortSignal.timeout): a
   * test on a virtual clock passes one that aborts when its clock gets there, so timeouts fire without real waiting.
   * Not derived from `sleep`, which a test may make return at once.
   */
  timeoutSignal?: TimeoutSignal | undefined;
}

export interface CallOptions {
  /** The location (`Platform-Restaurant-External-ID`). */
  location: string;
  signal?: AbortSignal | undefined;
}

export interface SearchOptions extends CallOptions {
  /** Records per page (Larder: 1–500, default 100); any other is a TypeError, nothing sent. */
  pageSize?: number | undefined;
  /** Start from this page (a `nextPageToken` of the same search) instead of the first. */
  pageToken?: string | undefined;
}

export interface Page<T> {
  data: T[];
  currentPageToken: string;
  nextPageToken: string;
}

/** Every record across all pages, lazily: nothing is sent until it is iterated, and each iteration starts anew. */
export interface SearchResult<T> extends AsyncIterable<T> {
  /** Whole pages with their tokens. */
  pages(): AsyncIterable<Page<T>>;
}

export interface SyncOptions<F> extends CallOptions {
  /** Where to start: the watermark a previous sync ended with, a day (YYYY-MM-DD) or an ISO instant; absent: all. */
  since?: Watermark | string | undefined;
  /** More conditions (the sync sets `updatedDateRange` itself). */
  filter?: Omit<F, 'updatedDateRange'> | undefined;
  pageSize?: number | undefined;
}

/**
 * Every record changed since the watermark, each version once, oldest change first. Once iterated to the end,
 * `watermark` holds where the next sync starts (the iterator's return value is the same watermark).
 */
export interface SyncRun<T> extends AsyncIterable<T> {
  [Symbol.asyncIterator](): AsyncGenerator<T, Watermark, undefined>;
  readonly watermark: Watermark | undefined;
}

export interface RecordsApi<T, F> {
  get(id: string, options: CallOptions): Promise<T>;
  search(filter: F, options: SearchOptions): SearchResult<T>;
  sync(options: SyncOptions<F>): SyncRun<T>;
}

export interface LarderClient {
  purchaseOrders: RecordsApi<PurchaseOrder, PurchaseOrdersSearchRequest>;
  inventoryHistory: RecordsApi<InventoryHistoryLogEntry, InventoryHistorySearchRequest>;
}

/** Each setting given, else its default: spreading would let an undefined one override the default. */
const retrySettings = (retry: RetryOptions): RetrySettings => ({
  maxAttempts: retry.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
  baseDelayMs: retry.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
  maxDelayMs: retry.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
  maxElapsedMs: retry.maxElapsedMs ?? DEFAULT_RETRY.maxElapsedMs,
});

/**
 * The login's URL: under a host (Larder's URL), or under the interface's own {auth_base_url}, which ends in
 * /authentication/v1 and takes /authentication/login (so that base is never doubled into a 404).
 */
const loginUrl = (authBase: string) => {
  const base = trimSlash(authBase);
  const version = '/authentication/v1';
  return base.endsWith(version) ? `${base}${LOGIN_PATH.slice(version.length)}` : `${base}${LOGIN_PATH}`;
};

/** The server refused the token itself (expired, revoked): worth one new login, unlike a missing scope or grant. */
const invalidToken = (answer: HttpAnswer) =>
  answer.status === 401 && /invalid_token/.test(answer.headers.get('www-authenticate') ?? '');

/**
 * A location travels in a header: one fetch would strip or refuse is a TypeError, never another location's answer;
 * an empty one (an environment variable set to nothing) too, never a 400 from the server naming the header.
 */
const checkLocation = (location: unknown): void => {
  if (location === '' || !headerCarries(location))
    throw new TypeError(`location must be a non-empty ${HEADER_RULE}, not ${JSON.stringify(location)}`);
};

/** Options are checked when the client is made: a mistake there is a TypeError, never a failed call later. */
const checkOptions = (options: ClientOptions, retry: RetrySettings | false, timeoutMs: number): void => {
  const credentials = 'the client logs in with clientId and clientSecret';
  checkUrl('baseUrl', options.baseUrl, credentials);
  if (options.authBaseUrl !== undefined) checkUrl('authBaseUrl', options.authBaseUrl, credentials);
  checkSecret('clientId', options.clientId);
  checkSecret('clientSecret', options.clientSecret);
  checkWhole('timeoutMs', timeoutMs, 1);
  checkFunctions(options, ['fetch', 'sleep', 'now', 'timeoutSignal']);
  if (retry === false) return;
  checkWhole('retry.maxAttempts', retry.maxAttempts, 1);
  checkWhole('retry.baseDelayMs', retry.baseDelayMs, 0);
  checkWhole('retry.maxDelayMs', retry.maxDelayMs, 0);
  // With none at all, no call could ever be sent.
  checkWhole('retry.maxElapsedMs', retry.maxElapsedMs, 1);
};

export const createClient = (options: ClientOptions): LarderClient => {
  const retry = options.retry === false ? false : retrySettings(options.retry ?? {});
  const timeoutMs = options.timeoutMs ?? 30_000;
  checkOptions(options, retry, timeoutMs);
  const baseUrl = serverBase(options.baseUrl);
  const now = options.now ?? Date.now;
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retry,
    timeoutMs,
    sleep: options.sleep ?? realSleep,
    timeoutSignal: options.timeoutSignal ?? realTimeoutSignal,
    now,
    random: Math.random,
  });
  const tokens = createTokenSource({
    transport,
    loginUrl: loginUrl(options.authBaseUrl ?? baseUrl),
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    now,
    backoff: transport.backoff,
  });

  /** One retail call: the shared token, one new login and one retry if the server refuses the token. */
  const call = async <R>(
    method: 'GET' | 'POST',
    path: string,
    call: CallOptions,
    body?: unknown,
  ): Promise<R> => {
    checkLocation(call.location);
    /** The token the last attempt carried, and every token the call carried (an error masks each). */
    let sent: Cached | undefined;
    const carried: string[] = [];
    const startedAt = now();
    // One maxElapsedMs for the call: a send after a new login gets what the first left, not a budget of its own.
    const send = (again?: HttpAnswer) =>
      transport.send({
        ...(again === undefined ? {} : { again: { startedAt, answer: again } }),
        url: `${baseUrl}${path}`,
        method,
        headers: {
          [LOCATION_HEADER]: call.location,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        // Taken per attempt, after any wait for a rate limit: a token taken before a long wait may expire in it.
        // A login the token needs ends within the call's maxElapsedMs (`deadline`).
        authorize: async (signal, deadline) => {
          sent = await tokens.token(signal, deadline);
          carried.push(sent.accessToken);
          return { authorization: `Bearer ${sent.accessToken}` };
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: call.signal,
        limit: `location:${call.location}`,
      });
    let answer = await send();
    // Sent again within what is left: with nothing left (before, or once a hold or the login took it), the 401 is
    // the answer.
    if (invalidToken(answer)) {
      if (sent !== undefined) tokens.invalidate(sent);
      answer = await send(answer);
    }
    if (answer.status < 200 || answer.status > 299) throw apiError(answer, carried);
    return parseBody<R>(answer, `${method} ${path}`);
  };

  const records = <T, F>(name: keyof typeof RECORD_KINDS): RecordsApi<T, F> => {
    const { idField } = RECORD_KINDS[name];
    const search = (filter: F, options: SearchOptions): SearchResult<T> => {
      // The server would refuse it with a 400; said here, naming the option, before a login is spent on it.
      checkLocation(options.location);
      const { pageSize } = options;
      if (
        pageSize !== undefined &&
        !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)
      )
        throw new TypeError(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, not ${pageSize}`);
      const pages = async function* (): AsyncGenerator<Page<T>> {
        let pageToken = options.pageToken ?? '';
        // A server whose tokens loop (A, B, A, …) would walk forever. Brent's cycle check: one saved token, moved
        // to the current one at each power of two, finds any loop within a few of its own lengths, in constant
        // memory however long the walk (a Set of every token would grow with it).
        let saved = pageToken;
        let stride = 1;
        let sinceSaved = 0;
        for (;;) {
          options.signal?.throwIfAborted();
          const query = new URLSearchParams();
          if (pageSize !== undefined) query.set('pageSize', String(pageSize));
          if (pageToken !== '') query.set('pageToken', pageToken);
          const text = query.toString();
          const page = await call<Page<T>>(
            'POST',
            `/v1/${name}/search${text === '' ? '' : `?${text}`}`,
            options,
            filter ?? {},
          );
          // A page without its records or its next token (a proxy's or another server's answer) ends the walk
          // with an error, rather than a TypeError or a request for page "null".
          if (!Array.isArray(page?.data) || typeof page.nextPageToken !== 'string')
            throw new LarderClientError(`POST /v1/${name}/search answered something that is not a page.`);
          yield page;
          if (page.nextPageToken === '') return;
          if (page.nextPageToken === saved)
            throw new LarderClientError(`The server repeated page token ${saved}: the walk would not end.`);
          pageToken = page.nextPageToken;
          sinceSaved += 1;
          if (sinceSaved === stride) {
            saved = pageToken;
            stride *= 2;
            sinceSaved = 0;
          }
        }
      };
      return {
        pages,
        [Symbol.asyncIterator]: async function* () {
          for await (const page of pages()) yield* page.data;
        },
      };
    };
    return {
      // Async: an id refused here rejects, as a location refused in call does.
      get: async (id, options) => call<T>('GET', `/v1/${name}/${pathSegment('id', id)}`, options),
      search,
      sync: (options) => {
        // Checked here, not when iterated: a run that cannot start leaves no watermark, so a `finally` saving
        // run.watermark would fail on undefined and hide this error.
        startingPoint(options.since);
        let watermark: Watermark | undefined;
        return {
          get watermark() {
            return watermark;
          },
          [Symbol.asyncIterator]: async function* () {
            const state = createSyncState(options.since);
            try {
              // Its type leaves it out, but a filter typed as a search's can hold one: with no since it would walk
              // that range alone, and the watermark would claim the rest was seen.
              if (
                ((options.filter as { updatedDateRange?: unknown } | undefined)?.updatedDateRange ?? null) !==
                null
              )
                throw new TypeError(
                  'filter.updatedDateRange must be absent: a sync sets it itself, from since (a watermark, a day or an instant)',
                );
              // Archiving is a change too: a purchase-order sync sees archived orders unless told otherwise.
              const base = name === 'purchaseOrders' ? { includeArchived: true } : {};
              const filter = {
                ...base,
                ...options.filter,
                ...(state.day === null ? {} : { updatedDateRange: { startDate: state.day } }),
              } as F;
              for await (const record of search(filter, options)) {
                const fields = record as Record<string, unknown>;
                const id = String(fields[idField]);
                const modified = String(fields['modifiedDate']);
                if (!state.fresh(id, modified)) continue;
                yield record;
                // Resumed: the caller's loop asked for the next record. A loop that threw on this one (or broke
                // out on it: the two look the same here) never gets here, so the watermark never covers a record
                // that may not have been stored; it comes again instead.
                state.handled(id, modified);
              }
            } finally {
              // Set however the walk ends: records come oldest change first, so a walk cut short (a failure, a
              // break) leaves a watermark the next sync resumes from, not the run's starting point.
              watermark = state.watermark();
            }
            return watermark;
          },
        };
      },
    };
  };

  return {
    purchaseOrders: records('purchaseOrders'),
    inventoryHistory: records('inventoryHistory'),
  };
};
