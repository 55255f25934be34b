import {
  checkFunctions,
  checkSecret,
  checkUrl,
  checkWhole,
  HEADER_RULE,
  headerCarries,
  pathSegment,
  serverBase,
} from './checks.js';
import { instant, isDay } from './dates.js';
import type {
  Cleared,
  ClientCredentials,
  ClockView,
  DeletedLocation,
  FaultRule,
  FaultRulesState,
  Imported,
  IntegrationReport,
  InventoryHistoryLogEntry,
  JournalEntry,
  JournalList,
  LocationsOverview,
  NewClientRequest,
  PurchaseOrder,
  RateLimitState,
  SandboxReset,
} from './generated/types.js';
import { apiError, parseBody } from './tokens.js';
import {
  createTransport,
  type HttpRequest,
  realSleep,
  realTimeoutSignal,
  type Sleep,
  type TimeoutSignal,
} from './transport.js';

export interface SandboxOptions {
  /** Larder's URL (such as http://127.0.0.1:8080). */
  baseUrl: string;
  /** The token `larder serve` was started with (`--admin-token`, or the demo's, printed at start). */
  adminToken: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  /** Per request, any wait and reading the body included (default 30,000 ms: a large fixture load takes a while). */
  timeoutMs?: number | undefined;
  /** How `requests.follow` waits between polls (default setTimeout): a test can poll when it chooses. */
  sleep?: Sleep | undefined;
  /**
   * Makes the signal that ends a request, or a wait for its turn, `ms` from now (default AbortSignal.timeout), as
   * the client's: a test on a virtual clock passes one that aborts when its clock gets there, so a timeout fires
   * without real waiting.
   */
  timeoutSignal?: TimeoutSignal | undefined;
}

/** How far `clock.advance` moves: the parts add up. */
export interface Duration {
  days?: number | undefined;
  hours?: number | undefined;
  minutes?: number | undefined;
  seconds?: number | undefined;
}

/** `GET /_larder/requests`: every field given must match. */
export interface JournalFilter {
  /** Empty is a TypeError, as for location and operation: it would filter nothing. */
  clientId?: string | undefined;
  location?: string | undefined;
  /** An operation id (`searchPurchaseOrders`, …). */
  operation?: string | undefined;
  /** An exact status (`429`) or a class (`4xx`). */
  status?: number | `${1 | 2 | 3 | 4 | 5}xx` | undefined;
  /** Entries at or after this (virtual) time: an RFC 3339 date-time, or a day (`YYYY-MM-DD`) for its midnight UTC. */
  since?: string | Date | undefined;
  /** At most this many, the newest (still oldest first). */
  limit?: number | undefined;
  /** Only entries recorded after the listing that answered this `next`. */
  after?: JournalList['next'] | undefined;
}

export interface FollowOptions {
  /** Stops following: the iteration rejects with the signal's reason (an AbortError), as every abort here. */
  signal?: AbortSignal | undefined;
  /** Between polls (default 1,000 ms, as `larder requests --follow`). */
  intervalMs?: number | undefined;
}

/**
 * `requests.follow`: every matching entry, oldest first, as the journal records it; nothing is sent until it is
 * iterated, and each iteration starts anew from the filter's `after` (or the whole journal).
 */
export interface JournalFollow extends AsyncIterable<JournalEntry> {
  /**
   * The `next` of the last listing whose entries were all taken (undefined before one): `after` it lists only
   * what came later. A loop left mid-listing (a break, a throw) leaves it before that listing, so going on from
   * it may list again entries already taken (tell them by `id`), never skips one.
   */
  readonly next: JournalList['next'] | undefined;
  /**
   * Entries (of any client) recorded after the start (`after`, else the first listing) that the full journal
   * dropped before a poll could list them: not 0, some were never yielded. Poll more often, or raise --journal-size.
   */
  readonly missed: number;
}

/**
 * Larder's sandbox controls (`/_larder/`), typed, for an integration's own test suite: the virtual clock,
 * fixtures, clients, the request journal, the integration report, fault rules and a reset. Every call answers the
 * server's own shapes; a refusal throws `LarderApiError` with the server's ErrorMessage (a bad fixture's nested
 * `errors` name the record index and field).
 */
export interface LarderSandbox {
  clock: {
    get(): Promise<ClockView>;
    /**
     * Jumps to `now` (backwards too): a Date, an ISO date-time, or a day (its midnight UTC); `frozen` stops time
     * there. A time that is none of these is a TypeError, and nothing is sent.
     */
    set(now: string | Date, options?: { frozen?: boolean | undefined }): Promise<ClockView>;
    /** Moves the clock forward: `advance({ days: 2 })`, or a number of seconds. */
    advance(by: Duration | number): Promise<ClockView>;
    /** Back to real time. */
    reset(): Promise<ClockView>;
  };
  locations: {
    /** Every location with its record counts and the span of their modifiedDate. */
    list(): Promise<LocationsOverview>;
    /** Loads purchase orders into a location (created if new), all or nothing, as `larder import` does. */
    loadPurchaseOrders(location: string, records: readonly PurchaseOrder[]): Promise<Imported>;
    /** Loads inventory entries into a location (created if new), all or nothing. */
    loadInventoryHistory(location: string, records: readonly InventoryHistoryLogEntry[]): Promise<Imported>;
    /** Removes a location and all its records. */
    remove(location: string): Promise<DeletedLocation>;
  };
  clients: {
    /** A new API client; its secret is in this answer only. */
    create(request: NewClientRequest): Promise<ClientCredentials>;
  };
  requests: {
    /** The journal's entries, oldest first. */
    list(filter?: JournalFilter): Promise<JournalEntry[]>;
    /** The entries and how many the journal dropped since its last clear: a test can tell it missed some. */
    read(filter?: JournalFilter): Promise<JournalList>;
    /**
     * The matching entries already recorded (`limit` trims only this first listing; `after` starts later), then
     * every new one as it is recorded: polls `after` each listing's `next`, until `signal` aborts.
     */
    follow(filter?: JournalFilter, options?: FollowOptions): JournalFollow;
    clear(): Promise<Cleared>;
  };
  /**
   * Judges one client's recorded traffic against the platform's guidance: no findings, a well-behaved client, if
   * `requestsJudged` is above 0 (a client id with no traffic, a typo say, is judged on nothing and has no findings).
   */
  report(clientId: string): Promise<IntegrationReport>;
  faults: {
    list(): Promise<FaultRulesState>;
    /** Replaces every rule; all counters start again. */
    set(rules: readonly FaultRule[]): Promise<FaultRulesState>;
    /** Adds one rule (its id defaults to rule-N, N its position or the next free number); the others keep their counters. */
    add(rule: FaultRule): Promise<FaultRulesState>;
    /** Removes one rule by id; the others keep their counters. */
    remove(id: string): Promise<FaultRulesState>;
    clear(): Promise<FaultRulesState>;
  };
  rateLimits: {
    /** The server's limits (none without `--rate-limit`), and what each client and location, and each address, has used. */
    get(): Promise<RateLimitState>;
    /** Every count starts again: a test that spent a budget leaves the next one served. */
    clear(): Promise<RateLimitState>;
  };
  /**
   * Back to the first-start demo state: data, clients, clock, journal, no fault rules, failed logins or rate-limit
   * counts (a demo database only).
   */
  reset(): Promise<SandboxReset>;
}

const DURATION_SECONDS: Readonly<Record<keyof Duration, number>> = {
  days: 86_400,
  hours: 3600,
  minutes: 60,
  seconds: 1,
};

/**
 * The seconds `clock.advance` sends. What the server would refuse is a TypeError naming what was given: its 400
 * names `seconds`, which a caller who gave `{ days: -1 }` never wrote.
 */
const advanceSeconds = (by: Duration | number): number => {
  const parts = typeof by === 'object' && by !== null ? Object.entries(by) : [];
  const total =
    typeof by === 'number'
      ? by
      : parts.every(
            ([name, value]) =>
              value === undefined || (Object.hasOwn(DURATION_SECONDS, name) && typeof value === 'number'),
          )
        ? parts.reduce(
            (sum, [name, value]) => sum + (value ?? 0) * DURATION_SECONDS[name as keyof Duration],
            0,
          )
        : Number.NaN;
  if (Number.isSafeInteger(total) && total >= 1) return total;
  const said = (value: unknown) => (typeof value === 'string' ? `'${value}'` : String(value));
  const given =
    typeof by !== 'object' || by === null
      ? said(by)
      : parts.length === 0
        ? '{}'
        : `{ ${parts.map(([name, value]) => `${name}: ${said(value)}`).join(', ')} }`;
  throw new TypeError(
    `clock.advance needs days, hours, minutes and seconds (numbers) that add up to a whole number of seconds, at least 1, or that number itself, not ${given}.`,
  );
};

/** As setTimeout takes it. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The time `clock.set` sends: a day alone is its midnight UTC, as for `larder clock set` and a sync's days (the
 * server takes date-times only). What the server would refuse is a TypeError here, not a RangeError or a 400 later:
 * Date.parse also reads a date-time without a zone (as local time), other formats, and 2026-02-30.
 */
const clockTime = (now: string | Date): string => {
  const text =
    now instanceof Date
      ? Number.isNaN(now.getTime())
        ? undefined
        : now.toISOString()
      : isDay(now)
        ? `${now}T00:00:00Z`
        : now;
  if (text === undefined || Number.isNaN(instant(text)))
    throw new TypeError(
      `clock.set needs a valid Date, an RFC 3339 date-time (2025-06-01T09:00:00Z, or with ±HH:MM) or a day (YYYY-MM-DD), not ${now instanceof Date ? 'an invalid Date' : JSON.stringify(now)}.`,
    );
  return text;
};

export const createSandbox = (options: SandboxOptions): LarderSandbox => {
  checkUrl('baseUrl', options.baseUrl, 'the sandbox sends adminToken');
  checkSecret('adminToken', options.adminToken);
  // Never echoed: it is a secret.
  if (!headerCarries(options.adminToken)) throw new TypeError(`adminToken must be a ${HEADER_RULE}`);
  const timeoutMs = options.timeoutMs ?? 30_000;
  checkWhole('timeoutMs', timeoutMs, 1);
  checkFunctions(options, ['fetch', 'sleep', 'timeoutSignal']);
  const base = `${serverBase(options.baseUrl)}/_larder`;
  // No retries: a test driving its sandbox wants a refusal or an outage at once, not after backoff.
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    retry: false,
    timeoutMs,
    sleep: realSleep,
    timeoutSignal: options.timeoutSignal ?? realTimeoutSignal,
    now: Date.now,
    random: Math.random,
  });
  const sleep = options.sleep ?? realSleep;
  const call = async <R>(
    method: HttpRequest['method'],
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<R> => {
    const answer = await transport.send({
      url: `${base}${path}`,
      method,
      headers: {
        authorization: `Bearer ${options.adminToken}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
      limit: 'admin',
    });
    // A proxy's error page may quote the request's Authorization header.
    if (answer.status < 200 || answer.status > 299) throw apiError(answer, [options.adminToken]);
    return parseBody<R>(answer, `${method} /_larder${path}`);
  };
  const query = (fields: Record<string, string | number | undefined>): string => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      if (value !== undefined) params.set(name, String(value));
    const text = params.toString();
    return text === '' ? '' : `?${text}`;
  };
  const location = (id: string) => `/locations/${pathSegment('location', id)}`;
  // An empty field would filter nothing: every entry, not the ones meant (a variable set to nothing).
  const checkFilter = (filter: JournalFilter) => {
    for (const field of ['location', 'clientId', 'operation'] as const)
      if (filter[field] === '') throw new TypeError(`${field} must be a non-empty string, not ""`);
  };
  const readJournal = async (filter: JournalFilter = {}, signal?: AbortSignal) => {
    checkFilter(filter);
    return call<JournalList>(
      'GET',
      `/requests${query({
        clientId: filter.clientId,
        location: filter.location,
        operation: filter.operation,
        status: filter.status,
        since: filter.since instanceof Date ? filter.since.toISOString() : filter.since,
        limit: filter.limit,
        after: filter.after,
      })}`,
      undefined,
      signal,
    );
  };
  const follow = (
    filter: JournalFilter = {},
    { signal, intervalMs = 1000 }: FollowOptions = {},
  ): JournalFollow => {
    if (!Number.isInteger(intervalMs) || intervalMs < 0 || intervalMs > MAX_TIMER_MS)
      throw new TypeError(`intervalMs must be a whole number from 0 to ${MAX_TIMER_MS}, not ${intervalMs}`);
    checkFilter(filter);
    let next: string | undefined;
    let missed = 0;
    return {
      get next() {
        return next;
      },
      get missed() {
        return missed;
      },
      [Symbol.asyncIterator]: async function* () {
        next = filter.after;
        missed = 0;
        // The limit trims the first listing only: each poll lists everything recorded since the one before.
        let listing = await readJournal(filter, signal);
        for (;;) {
          missed += listing.missed ?? 0;
          yield* listing.requests;
          // Resumed: the loop took every entry of this listing, so going on from its next misses none of them.
          next = listing.next;
          await sleep(intervalMs, signal);
          signal?.throwIfAborted();
          listing = await readJournal({ ...filter, limit: undefined, after: next }, signal);
        }
      },
    };
  };

  return {
    clock: {
      get: () => call('GET', '/clock'),
      // Async: a time refused here rejects like a refusal of the server, never throws at the call.
      set: async (now, { frozen } = {}) =>
        call('PUT', '/clock', {
          now: clockTime(now),
          ...(frozen === undefined ? {} : { frozen }),
        }),
      advance: async (by) => call('POST', '/clock/advance', { seconds: advanceSeconds(by) }),
      reset: () => call('DELETE', '/clock'),
    },
    locations: {
      list: () => call('GET', '/locations'),
      // Async: an id refused here rejects like a refusal of the server, never throws at the call.
      loadPurchaseOrders: async (id, records) => call('POST', `${location(id)}/purchaseOrders`, records),
      loadInventoryHistory: async (id, records) => call('POST', `${location(id)}/inventoryHistory`, records),
      remove: async (id) => call('DELETE', location(id)),
    },
    clients: { create: (request) => call('POST', '/clients', request) },
    requests: {
      list: async (filter = {}) => (await readJournal(filter)).requests,
      read: (filter) => readJournal(filter),
      follow,
      clear: () => call('DELETE', '/requests'),
    },
    report: (clientId) => call('GET', `/report${query({ clientId })}`),
    faults: {
      list: () => call('GET', '/faults'),
      set: (rules) => call('PUT', '/faults', { rules }),
      add: (rule) => call('POST', '/faults', rule),
      remove: async (id) => call('DELETE', `/faults/${pathSegment('id', id)}`),
      clear: () => call('DELETE', '/faults'),
    },
    rateLimits: {
      get: () => call('GET', '/rate-limits'),
      clear: () => call('DELETE', '/rate-limits'),
    },
    reset: () => call('POST', '/reset'),
  };
};
