import type { Static } from '@sinclair/typebox';
import type { FindingSchema } from './admin-schemas.js';
import { byArrival, SEARCH_OPERATIONS, type StampedEntry, TOKEN_OPERATIONS } from './journal-entry.js';

/**
 * The integration report's rules: how one client's recorded traffic (the request journal) measures up to the
 * platform's published guidance for integrators. Pure: entries in, findings out, no clock and no I/O.
 *
 * Times are the virtual clock's: a request is placed at its arrival (`timeMs`) and an answer at arrival plus
 * `durationMs`, so a request that was already in flight when an answer came is never blamed on that answer.
 * A Retry-After is counted from the 429's arrival instead: the server worked it out on its clock then, rounded
 * up to whole seconds, and a frozen clock did not move while the 429 was served, however long that took.
 */

/** The documented rules, in the order the report lists their findings. Ids are stable. */
export const RULES = [
  {
    id: 'token-requests-per-hour',
    severity: 'error',
    title: 'Too many token requests',
    description:
      'More than 2 token requests (login or OAuth token, whatever their answer) within 60 minutes. The platform ' +
      'asks for one token a day, reused until it expires, and never a new one more often than every 30 minutes. ' +
      'A server started with a --token-ttl under 30 minutes allows one more per token lifetime in the hour. Not ' +
      'counted: a token request a fault rule failed (an injected status, reset or cut body) or the client gave up ' +
      'on before its answer (status 0: a timeout during injected latency, say), since no token reached the ' +
      'client, and the first token request sent after a 401 came to a retail request that carried the token ' +
      'the client held (the one its last token request issued; expired, revoked or refused by an injected ' +
      'invalidToken): logging in again then is the right answer. A new login with no such 401 before it counts.',
  },
  {
    id: 'several-tokens-at-once',
    severity: 'warning',
    title: 'Several access tokens at once',
    description:
      'Two or more access tokens in use at the same time (the spans from first to last accepted use of their ' +
      'retail requests overlap), e.g. one per location. One token serves every location the client may read.',
  },
  {
    id: 'retry-before-retry-after',
    severity: 'error',
    title: 'Retry-After not honoured',
    description:
      'A request sent after a 429 answer (real or injected) but before its Retry-After had passed. A 429 of a ' +
      'token request holds back token requests; a 429 of a retail request holds back retail requests.',
  },
  {
    id: 'repeated-failing-request',
    severity: 'warning',
    title: 'Failing request repeated unchanged',
    description:
      'The same request (method, path, location, body, pageToken; for a 401, the same access token too) answered ' +
      'the same 4xx status three times or more, consecutive or not. A 4xx other than 429 will not change by ' +
      'asking again: fix the request. A 401 from an injected invalidToken is never the same as another: the ' +
      'token it refused is still good, and a new login may hand it back.',
  },
  {
    id: 'token-reused-after-401',
    severity: 'error',
    title: 'Token reused after 401',
    description:
      'A retail request sent with an access token after a 401 to that token (expired, revoked, or an injected ' +
      'invalidToken) had been answered, when no token request (login or OAuth token) sent after that 401 and ' +
      'answered before the request handed the client that same token back. After a 401, log in again before ' +
      'the next request: a login that hands back the same token (an injected invalidToken leaves it good) makes ' +
      'it good again; a token kept without asking is flagged.',
  },
  {
    id: 'first-page-polled',
    severity: 'warning',
    title: 'First page polled',
    description:
      'The same first search page (same operation, location, body and pageSize, no pageToken) requested less ' +
      'than 60 seconds after it was last answered successfully (an answer a fault rule cut, slowed or delayed ' +
      'does not count: the client may never have had it), unless a later page of the same search failed since ' +
      '(its pageToken refused with 400 code 40005, a 5xx, or an answer a fault rule reset or cut; real or ' +
      'injected): starting over is then a way on. Poll at most once a minute.',
  },
  {
    id: 'full-rewalk-without-date-range',
    severity: 'warning',
    title: 'Whole history re-walked',
    description:
      'The same search (operation, location, body) without updatedDateRange walked from its first page to its ' +
      'last twice or more (a page a fault rule cut or reset does not count: the client never had it). After the ' +
      'first full walk, sync incrementally with updatedDateRange.',
  },
  {
    id: 'server-error-retried-at-once',
    severity: 'warning',
    title: 'Server error retried without backoff',
    description:
      'A request answered 5xx sent again unchanged less than 1 second after that answer. Back off before ' +
      'retrying (e.g. 1 s, then 2 s, 4 s, … with jitter), so a struggling server is not hammered.',
  },
] as const satisfies readonly {
  id: string;
  severity: 'error' | 'warning' | 'info';
  title: string;
  description: string;
}[];

export type RuleId = (typeof RULES)[number]['id'];
export type Severity = 'error' | 'warning' | 'info';

/** A broken rule (FindingSchema documents each field), named by the rule's id. */
export type Finding = Omit<Static<typeof FindingSchema>, 'rule' | 'severity'> & {
  rule: RuleId;
  severity: Severity;
};

export const MAX_EXAMPLES = 5;

const HOUR_MS = 60 * 60 * 1000;
/** Token requests allowed in any sliding 60-minute window, for the platform's day-long tokens. */
const TOKEN_REQUESTS_PER_HOUR = 2;

/**
 * The server's own token lifetime: a sandbox started with a short --token-ttl (to test expiry) makes a correct
 * client renew more often, one token per lifetime, so the hour's allowance grows to match.
 */
export interface JudgeOptions {
  tokenTtlSeconds?: number;
}

const tokenAllowancePerHour = ({ tokenTtlSeconds }: JudgeOptions): number =>
  tokenTtlSeconds === undefined
    ? TOKEN_REQUESTS_PER_HOUR
    : Math.max(TOKEN_REQUESTS_PER_HOUR, Math.ceil(HOUR_MS / (tokenTtlSeconds * 1000)) + 1);
/** Times the same failing request may be sent before it is reported. */
const REPEATED_FAILURE_THRESHOLD = 3;
const FIRST_PAGE_INTERVAL_MS = 60 * 1000;
/** The least wait before retrying a request answered 5xx. */
const MIN_RETRY_WAIT_MS = 1000;

const severityOf = (rule: RuleId): Severity => RULES.find((r) => r.id === rule)!.severity;

const finding = (rule: RuleId, message: string, count: number, examples: readonly string[]): Finding => ({
  rule,
  severity: severityOf(rule),
  message,
  count,
  exampleRequestIds: examples.slice(0, MAX_EXAMPLES),
});

/** `2025-03-10 10:00 UTC`, with seconds only when they are not zero. */
export const formatUtc = (ms: number): string => {
  const iso = new Date(ms).toISOString();
  const seconds = iso.slice(17, 19);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${seconds === '00' ? '' : `:${seconds}`} UTC`;
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** JSON with object keys sorted at every depth, so bodies that differ only in key order compare equal. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  ) ?? 'undefined';

const answeredAtMs = (entry: StampedEntry) => entry.timeMs + entry.durationMs;
const isTokenRequest = (entry: StampedEntry) =>
  entry.operation !== undefined && TOKEN_OPERATIONS.includes(entry.operation);
const isSearch = (entry: StampedEntry) =>
  entry.operation !== undefined && SEARCH_OPERATIONS.includes(entry.operation);
const isSuccess = (entry: StampedEntry) => entry.status >= 200 && entry.status < 300;
/** A request that used an access token (not a token request, whose fingerprint is of the token it issued). */
const usesToken = (entry: StampedEntry): entry is StampedEntry & { tokenFingerprint: string } =>
  entry.tokenFingerprint !== undefined && !isTokenRequest(entry);
const where = (entry: StampedEntry) => (entry.location === undefined ? '' : ` at ${entry.location}`);
const hasDateRange = (body: unknown) =>
  body !== null &&
  typeof body === 'object' &&
  (body as { updatedDateRange?: unknown }).updatedDateRange !== undefined &&
  (body as { updatedDateRange?: unknown }).updatedDateRange !== null;

/**
 * The order a client's entries are judged in, whatever order they were given in: by arrival, then by answer order
 * (`byArrival`; a slow request is answered late), then, for stamps that tie (made-up entries), by `seq` and `id`.
 */
const inOrder = (a: StampedEntry, b: StampedEntry): number =>
  byArrival(a, b) || a.seq - b.seq || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const groupBy = <K, V>(items: readonly V[], key: (item: V) => K): Map<K, V[]> => {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
};

// ---------------------------------------------------------------------------------------------------------------

/** The effect a fault rule (or the header) applied, as the journal spells it (`status=503`, `reset`), if any. */
const injectedEffect = (entry: StampedEntry) => entry.fault?.slice(entry.fault.indexOf(' ') + 1);

/** Answered in the client's place by a fault rule, or cut on its way: the client never had the real answer. */
const failedByFault = (entry: StampedEntry) => {
  const effect = injectedEffect(entry);
  return (
    effect !== undefined && (effect.startsWith('status=') || effect === 'reset' || effect === 'cut-body')
  );
};

/**
 * A retail request refused with 401 for the token it carried (its fingerprint), expired, revoked or by an injected
 * invalid_token. A 401 to a request with no token is none.
 */
const isRefusal = (entry: StampedEntry) => usesToken(entry) && entry.status === 401;

/**
 * Whether `later` was sent once `refusal` had been answered: its answer came by `later`'s arrival, or, at one
 * instant (a frozen clock, where an answer's duration is real time added to a clock that stood still), before
 * `later`'s own answer. `refusal` comes first in the judged order.
 */
const sentAfterAnswer = (refusal: StampedEntry, later: StampedEntry) =>
  answeredAtMs(refusal) <= later.timeMs || refusal.timeMs === later.timeMs;

/**
 * The token requests the hour's count leaves out: those a fault rule failed or the client gave up on before their
 * answer (a timeout during injected latency), whose retry is the client's right
 * reaction (retry-before-retry-after and server-error-retried-at-once judge its pace), and each that answers a
 * refusal: the first token request sent after a 401 was answered to a request carrying the token the client
 * held, the one its latest token request issued (any, before the journal's first token request).
 */
const reactionsToFailures = (entries: readonly StampedEntry[]): Set<StampedEntry> => {
  const uncounted = new Set<StampedEntry>();
  // Refusals no token request was sent after yet: still in flight, or answered since the last one.
  let pending: StampedEntry[] = [];
  let held: string | undefined;
  for (const entry of entries) {
    if (isRefusal(entry)) pending.push(entry);
    if (!isTokenRequest(entry)) continue;
    // No token reached the client: a fault failed the answer, or the client was gone before it came (status 0).
    if (failedByFault(entry) || entry.status === 0) {
      uncounted.add(entry);
      continue;
    }
    const answered = pending.filter((refusal) => sentAfterAnswer(refusal, entry));
    pending = pending.filter((refusal) => !answered.includes(refusal));
    if (answered.some((r) => held === undefined || r.tokenFingerprint === held)) uncounted.add(entry);
    if (entry.tokenFingerprint !== undefined) held = entry.tokenFingerprint;
  }
  return uncounted;
};

const tokenRequestsPerHour = (entries: readonly StampedEntry[], options: JudgeOptions): Finding[] => {
  const allowed = tokenAllowancePerHour(options);
  const uncounted = reactionsToFailures(entries);
  const requests = entries.filter((e) => isTokenRequest(e) && !uncounted.has(e));
  // A request is one too many when two or more token requests came in the 60 minutes before it.
  const excess: StampedEntry[] = [];
  let busiest = { count: 0, startMs: 0 };
  let start = 0;
  for (let i = 0; i < requests.length; i++) {
    const current = requests[i]!;
    while (requests[start]!.timeMs <= current.timeMs - HOUR_MS) start++;
    const inWindow = i - start + 1;
    if (inWindow > allowed) excess.push(current);
    if (inWindow > busiest.count) busiest = { count: inWindow, startMs: requests[start]!.timeMs };
  }
  if (excess.length === 0) return [];
  return [
    finding(
      'token-requests-per-hour',
      `Reuse the access token: ${busiest.count} token requests in the hour from ${formatUtc(busiest.startMs)}` +
        (excess.length > 1 ? ` (${excess.length} token requests over the limit in all)` : '') +
        '; the platform asks for one token a day and never more often than every 30 minutes.',
      excess.length,
      excess.map((e) => e.requestId),
    ),
  ];
};

const severalTokensAtOnce = (entries: readonly StampedEntry[]): Finding[] => {
  // A token refused with 401 is not in use: its reuse is token-reused-after-401's business.
  const uses = entries.filter(usesToken).filter((e) => e.status !== 401);
  const spans = [...groupBy(uses, (e) => e.tokenFingerprint).values()].map((group) => ({
    firstMs: group[0]!.timeMs,
    lastMs: group.at(-1)!.timeMs,
    first: group[0]!,
    locations: new Set(group.map((e) => e.location)),
  }));
  // Sorted by first use, only the spans that begin before a span ends can overlap it: no quadratic scan for a
  // client that took a new token for every request.
  spans.sort((a, b) => a.firstMs - b.firstMs);
  const overlaps = new Set<(typeof spans)[number]>();
  for (let i = 0; i < spans.length; i++) {
    const a = spans[i]!;
    for (let k = i + 1; k < spans.length && spans[k]!.firstMs < a.lastMs; k++) {
      const b = spans[k]!;
      if (a.firstMs < b.lastMs) {
        overlaps.add(a);
        overlaps.add(b);
      }
    }
  }
  const overlapping = spans.filter((span) => overlaps.has(span));
  if (overlapping.length === 0) return [];
  const perLocation =
    overlapping.every((s) => s.locations.size === 1) &&
    new Set(overlapping.map((s) => [...s.locations][0])).size === overlapping.length;
  return [
    finding(
      'several-tokens-at-once',
      `Use one access token for every location: ${overlapping.length} access tokens were in use at the same time` +
        `${perLocation ? ' (one per location)' : ''}. One token, reused until it ` +
        'expires, serves all the locations the client may read.',
      overlapping.length,
      overlapping.map((s) => s.first.requestId),
    ),
  ];
};

const retryBeforeRetryAfter = (entries: readonly StampedEntry[]): Finding[] => {
  const early: { entry: StampedEntry; waitedMs: number; askedSeconds: number }[] = [];
  for (const kind of [true, false]) {
    const requests = entries.filter((e) => isTokenRequest(e) === kind);
    // The pending 429s: until when each holds back the requests of its kind.
    let holds: { answeredMs: number; untilMs: number; seconds: number }[] = [];
    for (const entry of requests) {
      holds = holds.filter((h) => h.untilMs > entry.timeMs);
      const hold = holds.find((h) => h.answeredMs <= entry.timeMs);
      if (hold !== undefined)
        early.push({ entry, waitedMs: entry.timeMs - hold.answeredMs, askedSeconds: hold.seconds });
      if (entry.status === 429 && entry.retryAfterSeconds !== undefined)
        holds.push({
          answeredMs: answeredAtMs(entry),
          // Not from the answer: real time added to a frozen clock's instant flagged a client that advanced it
          // by exactly Retry-After.
          untilMs: entry.timeMs + entry.retryAfterSeconds * 1000,
          seconds: entry.retryAfterSeconds,
        });
    }
  }
  if (early.length === 0) return [];
  early.sort((a, b) => inOrder(a.entry, b.entry));
  const first = early[0]!;
  return [
    finding(
      'retry-before-retry-after',
      `Wait for Retry-After after a 429: ${plural(early.length, 'request was', 'requests were')} sent before ` +
        `the Retry-After of an earlier 429 had passed (e.g. ${(first.waitedMs / 1000).toFixed(1)} s after a ` +
        `429 that asked for ${first.askedSeconds} s). Send nothing of the same kind until it has passed.`,
      early.length,
      early.map((e) => e.entry.requestId),
    ),
  ];
};

/**
 * What makes two requests the same one. A search whose body was never recorded (not JSON, not sent as JSON) may
 * have differed each time, so it is only ever the same as itself: the report does not claim "unchanged" blind.
 */
const requestKey = (entry: StampedEntry) =>
  JSON.stringify([
    entry.method,
    entry.path,
    entry.location ?? null,
    entry.body !== undefined
      ? canonicalJson(entry.body)
      : isSearch(entry)
        ? `unrecorded ${entry.requestId}`
        : null,
    entry.pageToken ?? null,
  ]);

const repeatedFailingRequest = (entries: readonly StampedEntry[]): Finding[] => {
  const failures = entries.filter((e) => e.status >= 400 && e.status < 500 && e.status !== 429);
  // A 401 sent with a new token each time (each expired in turn) is not the same request repeated. An injected
  // invalid_token refuses a good token that a new login may hand back: like an unrecorded body, it is only itself.
  const key = (e: StampedEntry) =>
    injectedEffect(e) === 'invalid-token'
      ? `refused ${e.requestId}`
      : `${requestKey(e)} ${e.status}${e.status === 401 ? ` ${e.tokenFingerprint ?? ''}` : ''}`;
  const repeated = [...groupBy(failures, key).values()].filter(
    (group) => group.length >= REPEATED_FAILURE_THRESHOLD,
  );
  if (repeated.length === 0) return [];
  const worst = repeated.reduce((a, b) => (b.length > a.length ? b : a));
  const example = worst[0]!;
  return [
    finding(
      'repeated-failing-request',
      `Fix failing requests instead of repeating them: ${plural(repeated.length, 'request was', 'requests were')} ` +
        `sent unchanged ${REPEATED_FAILURE_THRESHOLD} times or more with the same 4xx answer (e.g. ` +
        `${example.method} ${example.path}${where(example)}: ${example.status} ${worst.length} times). ` +
        'A 4xx answer will not change by asking again.',
      repeated.length,
      repeated.map((group) => group[0]!.requestId),
    ),
  ];
};

/** A token request that handed the client a token: answered with one, and not failed by a fault on its way. */
const handsToken = (entry: StampedEntry): entry is StampedEntry & { tokenFingerprint: string } =>
  isTokenRequest(entry) && isSuccess(entry) && entry.tokenFingerprint !== undefined && !failedByFault(entry);

/**
 * Per token: the 401s to it and the token requests that handed it out, each counted once known answered, as the
 * latest position (in the judged order) of either. A use is a reuse when the latest 401 it was sent after comes
 * later than the latest token request handing that token back that it was sent after.
 */
const tokenReusedAfter401 = (entries: readonly StampedEntry[]): Finding[] => {
  type Pending = { entry: StampedEntry; at: number };
  const tokens = new Map<
    string,
    { refused: Pending[]; refusedAt: number; issued: Pending[]; issuedAt: number }
  >();
  const token = (fingerprint: string) => {
    const state = tokens.get(fingerprint) ?? { refused: [], refusedAt: -1, issued: [], issuedAt: -1 };
    tokens.set(fingerprint, state);
    return state;
  };
  const reuses: StampedEntry[] = [];
  entries.forEach((entry, at) => {
    if (handsToken(entry)) token(entry.tokenFingerprint).issued.push({ entry, at });
    if (!usesToken(entry)) return;
    const state = token(entry.tokenFingerprint);
    // A 401 counts once answered before this use arrived (one in flight then, as at one frozen instant, is not
    // known to the client); a token request once answered by then, or at the same instant.
    for (const r of state.refused)
      if (answeredAtMs(r.entry) <= entry.timeMs) state.refusedAt = Math.max(state.refusedAt, r.at);
    state.refused = state.refused.filter((r) => answeredAtMs(r.entry) > entry.timeMs);
    for (const l of state.issued)
      if (sentAfterAnswer(l.entry, entry)) state.issuedAt = Math.max(state.issuedAt, l.at);
    state.issued = state.issued.filter((l) => !sentAfterAnswer(l.entry, entry));
    if (state.refusedAt > state.issuedAt) reuses.push(entry);
    if (entry.status === 401) {
      // This 401 stands for any pending one answered no sooner, which it follows: short lists on a frozen clock.
      state.refused = state.refused.filter((r) => answeredAtMs(r.entry) < answeredAtMs(entry));
      state.refused.push({ entry, at });
    }
  });
  if (reuses.length === 0) return [];
  const reused = new Set(reuses.map((e) => e.tokenFingerprint));
  return [
    finding(
      'token-reused-after-401',
      `Get a new token after a 401: ${plural(reuses.length, 'request', 'requests')} reused ` +
        `${reused.size === 1 ? 'a token' : `${reused.size} tokens`} already refused with 401 (expired, revoked ` +
        'or an injected invalidToken) with no token request handing it back since. Log in again, then retry ' +
        'with the token the login returns.',
      reuses.length,
      reuses.map((e) => e.requestId),
    ),
  ];
};

const walkKey = (entry: StampedEntry) =>
  JSON.stringify([entry.operation, entry.location ?? null, canonicalJson(entry.body)]);

const firstPageKey = (entry: StampedEntry) =>
  JSON.stringify([
    entry.operation,
    entry.location ?? null,
    canonicalJson(entry.body),
    entry.pageSize ?? null,
  ]);

/**
 * A later page that leaves the client no page to go on from: its pageToken refused (400 code 40005, real or
 * injected), a 5xx, or an answer a fault rule reset or cut. Starting the walk over is a fair answer to each (a 429
 * is not one: it asks the client to wait and ask that page again).
 */
const walkBroken = (entry: StampedEntry) =>
  entry.pageToken !== undefined &&
  ((entry.status === 400 && (entry.code === 40005 || injectedEffect(entry) === 'bad-page-token')) ||
    entry.status >= 500 ||
    failedByFault(entry));

const firstPagePolled = (entries: readonly StampedEntry[]): Finding[] => {
  const polled: { entry: StampedEntry; gapMs: number }[] = [];
  // Measured from the last successful answer, so retrying a failed first page is not polling; by search (walkKey),
  // then by first page (firstPageKey), so a broken walk forgets every first page of its search.
  const lastSuccessMs = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    if (!isSearch(entry)) continue;
    const search = walkKey(entry);
    if (walkBroken(entry)) lastSuccessMs.delete(search);
    if (entry.pageToken !== undefined) continue;
    const firstPage = firstPageKey(entry);
    const pages = lastSuccessMs.get(search) ?? new Map<string, number>();
    const last = pages.get(firstPage);
    if (last !== undefined && entry.timeMs - last < FIRST_PAGE_INTERVAL_MS)
      polled.push({ entry, gapMs: entry.timeMs - last });
    if (isSuccess(entry) && entry.fault === undefined)
      lastSuccessMs.set(search, pages.set(firstPage, entry.timeMs));
  }
  if (polled.length === 0) return [];
  polled.sort((a, b) => inOrder(a.entry, b.entry));
  const first = polled[0]!;
  return [
    finding(
      'first-page-polled',
      `Poll at most once a minute: the same first page was requested ${plural(polled.length, 'time')} less ` +
        `than 60 s after the previous one (e.g. ${first.entry.operation}${where(first.entry)} again after ` +
        `${(first.gapMs / 1000).toFixed(1)} s). New records will not show sooner.`,
      polled.length,
      polled.map((p) => p.entry.requestId),
    ),
  ];
};

const fullRewalk = (entries: readonly StampedEntry[]): Finding[] => {
  // Full walks without updatedDateRange, by search; an open walk per search awaits its last page.
  const walks = new Map<string, { first: StampedEntry; pages: number }[]>();
  const open = new Map<string, { first: StampedEntry; pages: number }>();
  for (const entry of entries) {
    // A page a fault cut or reset never reached the client: it neither ends nor counts in the walk.
    if (!isSearch(entry) || !isSuccess(entry) || failedByFault(entry) || hasDateRange(entry.body)) continue;
    const key = walkKey(entry);
    let walk = open.get(key);
    if (entry.pageToken === undefined) {
      walk = { first: entry, pages: 0 };
      open.set(key, walk);
    } else if (walk === undefined) continue; // the walk began before the journal's oldest entry
    walk.pages++;
    if (entry.hasNextPage === false) {
      open.delete(key);
      const done = walks.get(key);
      if (done === undefined) walks.set(key, [walk]);
      else done.push(walk);
    }
  }
  const rewalks = [...walks.values()].filter((w) => w.length >= 2);
  if (rewalks.length === 0) return [];
  const again = rewalks.flatMap((w) => w.slice(1)).sort((a, b) => inOrder(a.first, b.first));
  const worst = rewalks.reduce((a, b) => (b.length > a.length ? b : a));
  const example = worst[0]!.first;
  return [
    finding(
      'full-rewalk-without-date-range',
      `Sync incrementally with updatedDateRange: the whole history was walked again ` +
        `${plural(again.length, 'time')} without updatedDateRange (e.g. ${example.operation}` +
        `${where(example)}: ${worst.length} full walks of ${plural(worst.at(-1)!.pages, 'page')}). After one full ` +
        'walk, ask only for what changed since the last sync.',
      again.length,
      again.map((w) => w.first.requestId),
    ),
  ];
};

const serverErrorRetriedAtOnce = (entries: readonly StampedEntry[]): Finding[] => {
  const hasty: { entry: StampedEntry; waitedMs: number; status: number }[] = [];
  for (const group of groupBy(entries, requestKey).values()) {
    for (let i = 1; i < group.length; i++) {
      const previous = group[i - 1]!;
      const entry = group[i]!;
      if (previous.status < 500) continue;
      const waitedMs = entry.timeMs - answeredAtMs(previous);
      // A negative wait is a request sent before the error came: not a retry of it.
      if (waitedMs >= 0 && waitedMs < MIN_RETRY_WAIT_MS)
        hasty.push({ entry, waitedMs, status: previous.status });
    }
  }
  if (hasty.length === 0) return [];
  hasty.sort((a, b) => inOrder(a.entry, b.entry));
  const first = hasty[0]!;
  return [
    finding(
      'server-error-retried-at-once',
      `Back off before retrying a server error: ${plural(hasty.length, 'request was', 'requests were')} ` +
        `retried less than 1 s after a 5xx answer (e.g. ${first.entry.method} ${first.entry.path}` +
        `${where(first.entry)} ${Math.round(first.waitedMs)} ms after a ${first.status}). Wait 1 s, then longer each time.`,
      hasty.length,
      hasty.map((h) => h.entry.requestId),
    ),
  ];
};

const JUDGES: readonly ((entries: readonly StampedEntry[], options: JudgeOptions) => Finding[])[] = [
  tokenRequestsPerHour,
  severalTokensAtOnce,
  retryBeforeRetryAfter,
  repeatedFailingRequest,
  tokenReusedAfter401,
  firstPagePolled,
  fullRewalk,
  serverErrorRetriedAtOnce,
];

/**
 * Judges one client's recorded traffic: its findings in RULES order, `[]` for a well-behaved client.
 * `entries` may hold many clients' requests; only those with this `clientId` count.
 */
export const judgeClient = (
  entries: readonly StampedEntry[],
  clientId: string,
  options: JudgeOptions = {},
): Finding[] => {
  const mine = entries.filter((e) => e.clientId === clientId).sort(inOrder);
  return JUDGES.flatMap((judge) => judge(mine, options));
};
