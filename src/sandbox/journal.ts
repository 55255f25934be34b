import type { JournalEntry } from './journal-entry.js';

export interface JournalFilter {
  clientId?: string;
  location?: string;
  operation?: string;
  /** An exact status (`429`) or a class (`4xx`). */
  status?: string;
  /** Entries at or after this virtual epoch ms. */
  sinceMs?: number;
  /** At most this many, the newest that match (still oldest first). */
  limit?: number;
}

/** An entry as recorded: its ISO `time` is made when read, its `seq` when recorded. */
export type RecordedEntry = Omit<JournalEntry, 'seq' | 'time'>;

/** What the pipeline's middlewares and handler noted about a request: whose it was, and the extras. */
export type EntryFacts = {
  [K in 'clientId' | 'tokenFingerprint' | keyof Extras]?: RecordedEntry[K] | undefined;
};

export interface Journal {
  readonly capacity: number;
  /** Copies what it keeps out of `entry`: the caller may drop or reuse it. */
  record(entry: RecordedEntry): void;
  /**
   * The same, for the journal middleware: the request's own fields as arguments and the noted ones in `facts`,
   * so no entry object is built or grown per request.
   */
  recordRequest(
    timeMs: number,
    method: string,
    path: string,
    status: number,
    durationMs: number,
    requestId: string,
    operation: string | undefined,
    location: string | undefined,
    facts: EntryFacts,
  ): void;
  /** Matching entries, oldest first. */
  list(filter?: JournalFilter): JournalEntry[];
  clear(): void;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;

/** What most requests leave out (errors, searches, token issues, faults): kept as one object only when present. */
type Extras = Pick<
  JournalEntry,
  | 'code'
  | 'body'
  | 'pageToken'
  | 'pageSize'
  | 'hasNextPage'
  | 'tokenExpiresAtMs'
  | 'retryAfterSeconds'
  | 'fault'
>;
const EXTRA_FIELDS = [
  'code',
  'body',
  'pageToken',
  'pageSize',
  'hasNextPage',
  'tokenExpiresAtMs',
  'retryAfterSeconds',
  'fault',
] as const satisfies readonly (keyof Extras)[];

const extrasOf = (entry: EntryFacts): Extras | undefined => {
  let extras: Record<string, unknown> | undefined;
  for (const field of EXTRA_FIELDS) {
    if (entry[field] === undefined) continue;
    extras ??= {};
    extras[field] = entry[field];
  }
  return extras as Extras | undefined;
};

/**
 * Bytes kept in place per entry for its path and its request id, the two strings that differ on every request.
 * Held as strings, each entry's would outlive the young generation, be copied and promoted, and keep the whole
 * request URL alive (a path is a slice of it): the largest share of the journal's cost to a GET by id, by CPU
 * profile. Copied as UTF-8 into one buffer they are no objects at all. Longer ones are kept as strings.
 */
const PATH_BYTES = 192;
const ID_BYTES = 128;
const SLOT_BYTES = PATH_BYTES + ID_BYTES;
/** A length saying the value did not fit and is kept as a string (longPath, longId). */
const OVERFLOW = 0xffff;

/** Distinct location headers shared, not kept once per entry; past this many, new ones are kept as sent. */
const MAX_INTERNED = 1024;

const statusMatches = (wanted: string, status: number): boolean =>
  /^\dxx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : Number(wanted) === status;

/**
 * A bounded journal: a ring of the last `capacity` entries, so memory stays flat however long it runs.
 *
 * Kept in columns, not as one object per entry, because of what it costs the garbage collector: every entry
 * outlives the young generation, so each object it holds is copied and later marked. An entry object with its
 * strings cost a cached-token GET by id about 12% more CPU; in columns it keeps the number fields in typed arrays,
 * shares repeated strings (method, operation, client, token fingerprint, location) and holds at most its path, its
 * request id and, for the few requests that have them, one object of extras.
 */
export const createJournal = (capacity = DEFAULT_JOURNAL_SIZE): Journal => {
  const timeMs = new Float64Array(capacity);
  const durationMs = new Float64Array(capacity);
  const status = new Uint16Array(capacity);
  const method: string[] = new Array(capacity);
  const text = Buffer.alloc(capacity * SLOT_BYTES);
  const pathLength = new Uint16Array(capacity);
  const idLength = new Uint16Array(capacity);
  const longPath: (string | undefined)[] = new Array(capacity);
  const longId: (string | undefined)[] = new Array(capacity);
  /** Writes `value` at `offset` when it fits in `room` bytes; the length written, or OVERFLOW. */
  const put = (value: string, offset: number, room: number): number =>
    // At most 3 bytes per UTF-16 unit: short strings need no byte count first.
    value.length * 3 <= room || Buffer.byteLength(value) <= room ? text.write(value, offset, room) : OVERFLOW;
  const get = (i: number, offset: number, length: number, long: (string | undefined)[]): string =>
    length === OVERFLOW
      ? long[i]!
      : text.toString('utf8', i * SLOT_BYTES + offset, i * SLOT_BYTES + offset + length);
  const operation: (string | undefined)[] = new Array(capacity);
  const clientId: (string | undefined)[] = new Array(capacity);
  const location: (string | undefined)[] = new Array(capacity);
  const tokenFingerprint: (string | undefined)[] = new Array(capacity);
  const extras: (Extras | undefined)[] = new Array(capacity);
  const interned = new Map<string, string>();
  const intern = (value: string): string => {
    const known = interned.get(value);
    if (known !== undefined) return known;
    if (interned.size < MAX_INTERNED) interned.set(value, value);
    return value;
  };
  let seq = 0;
  let oldest = 0;

  const read = (at: number, i: number): JournalEntry => {
    const entry: JournalEntry = {
      seq: at,
      time: new Date(timeMs[i]!).toISOString(),
      timeMs: timeMs[i]!,
      method: method[i]!,
      path: get(i, 0, pathLength[i]!, longPath),
      status: status[i]!,
      durationMs: durationMs[i]!,
      requestId: get(i, PATH_BYTES, idLength[i]!, longId),
    };
    if (operation[i] !== undefined) entry.operation = operation[i];
    if (clientId[i] !== undefined) entry.clientId = clientId[i];
    if (location[i] !== undefined) entry.location = location[i];
    if (tokenFingerprint[i] !== undefined) entry.tokenFingerprint = tokenFingerprint[i];
    return extras[i] === undefined ? entry : Object.assign(entry, extras[i]);
  };

  const recordRequest: Journal['recordRequest'] = (
    time,
    methodName,
    path,
    statusCode,
    duration,
    requestId,
    operationId,
    locationId,
    facts,
  ) => {
    const i = seq % capacity;
    timeMs[i] = time;
    durationMs[i] = duration;
    status[i] = statusCode;
    method[i] = methodName;
    const slot = i * SLOT_BYTES;
    pathLength[i] = put(path, slot, PATH_BYTES);
    idLength[i] = put(requestId, slot + PATH_BYTES, ID_BYTES);
    longPath[i] = pathLength[i] === OVERFLOW ? path : undefined;
    longId[i] = idLength[i] === OVERFLOW ? requestId : undefined;
    operation[i] = operationId;
    clientId[i] = facts.clientId;
    location[i] = locationId === undefined ? undefined : intern(locationId);
    tokenFingerprint[i] = facts.tokenFingerprint;
    extras[i] = extrasOf(facts);
    seq++;
    if (seq - oldest > capacity) oldest = seq - capacity;
  };

  return {
    capacity,
    record: (entry) =>
      recordRequest(
        entry.timeMs,
        entry.method,
        entry.path,
        entry.status,
        entry.durationMs,
        entry.requestId,
        entry.operation,
        entry.location,
        entry,
      ),
    recordRequest,
    list: (filter = {}) => {
      const found: JournalEntry[] = [];
      for (let at = oldest; at < seq; at++) {
        const i = at % capacity;
        if (filter.clientId !== undefined && clientId[i] !== filter.clientId) continue;
        if (filter.location !== undefined && location[i] !== filter.location) continue;
        if (filter.operation !== undefined && operation[i] !== filter.operation) continue;
        if (filter.status !== undefined && !statusMatches(filter.status, status[i]!)) continue;
        if (filter.sinceMs !== undefined && timeMs[i]! < filter.sinceMs) continue;
        found.push(read(at, i));
      }
      return filter.limit === undefined ? found : found.slice(Math.max(found.length - filter.limit, 0));
    },
    clear: () => {
      // Drop the references now, so what a cleared journal held can be collected.
      for (const column of [
        method,
        longPath,
        longId,
        operation,
        clientId,
        location,
        tokenFingerprint,
        extras,
      ])
        column.fill(undefined as never);
      oldest = seq;
    },
  };
};
