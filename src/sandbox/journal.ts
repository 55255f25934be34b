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
  /** Entries recorded since the last clear that the ring no longer holds (the oldest, overwritten). */
  dropped(): number;
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

/** Whether a request noted any extras: plain property reads of the facts' one shape, no loop over names. */
const hasExtras = (facts: EntryFacts): boolean =>
  facts.code !== undefined ||
  facts.body !== undefined ||
  facts.pageToken !== undefined ||
  facts.pageSize !== undefined ||
  facts.hasNextPage !== undefined ||
  facts.tokenExpiresAtMs !== undefined ||
  facts.retryAfterSeconds !== undefined ||
  facts.fault !== undefined;

const extrasOf = (facts: EntryFacts): Extras => {
  const extras: Record<string, unknown> = {};
  for (const field of EXTRA_FIELDS) if (facts[field] !== undefined) extras[field] = facts[field];
  return extras as Extras;
};

/**
 * One entry's row, in bytes: the numbers, the ids of its repeated strings, then its request id and its path as
 * UTF-8, which differ on every request, one after the other. Held as strings, each entry's would outlive the young
 * generation, be copied and promoted, and keep the whole request URL alive (a path is a slice of it).
 *
 * Two cache lines: a GET by id's row (a 36-character request id and a path of up to 60) fits, so recording touches
 * two lines and the default ring is 1.3 MB. At 384 bytes, with fixed places for the path and the request id, it
 * touched three lines of a 3.8 MB ring, each likely out of cache by the time its turn came round again.
 */
const ROW_BYTES = 128;
const TIME = 0; // f64
const DURATION = 8; // u32 microseconds (over an hour is kept as the most it holds)
const STATUS = 12; // u16
const METHOD = 14; // u16 dictionary ids from here on
const OPERATION = 16;
const CLIENT = 18;
const LOCATION = 20;
const FINGERPRINT = 22;
const ID_LENGTH = 25; // u8
const PATH_LENGTH = 26; // u8
/** The request id, then the path right after it. */
const TEXT = 28;
const TEXT_BYTES = ROW_BYTES - TEXT;
/** Row flags: the entry has extras; some value did not fit its row and is kept in `spilled`. */
const HAS_EXTRAS = 1;
const HAS_SPILLED = 2;
/** A length or an id saying the value is in `spilled`. */
const SPILL = 0xff;
const SPILL_ID = 0xffff;

/**
 * Repeated strings (methods, operations, clients, locations, token fingerprints) as small ids. Bounded: past
 * `max` distinct values, new ones are kept whole in the entry's spill record (client-chosen values could
 * otherwise grow it without end). Id 0 is "none".
 */
const createDictionary = (max: number) => {
  const ids = new Map<string, number>();
  const values: (string | undefined)[] = [undefined];
  // Consecutive requests mostly repeat a value (one client, one location): a string comparison, not a hash lookup.
  let lastValue: string | undefined;
  let lastId = 0;
  const lookUp = (value: string): number => {
    const known = ids.get(value);
    if (known !== undefined) return known;
    if (values.length > max) return SPILL_ID;
    ids.set(value, values.length);
    values.push(value);
    return values.length - 1;
  };
  return {
    idOf: (value: string | undefined): number => {
      if (value === undefined) return 0;
      if (value !== lastValue) {
        lastId = lookUp(value);
        lastValue = value;
      }
      return lastId;
    },
    valueOf: (id: number): string | undefined => values[id],
  };
};

/** Distinct values each dictionary keeps before it spills: far more than a sandbox's clients and locations. */
const MAX_DISTINCT = 4096;

type Spilled = Partial<
  Record<'method' | 'operation' | 'clientId' | 'location' | 'tokenFingerprint' | 'path' | 'requestId', string>
>;

const statusMatches = (wanted: string, status: number): boolean =>
  /^\dxx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : Number(wanted) === status;

/**
 * A bounded journal: a ring of the last `capacity` entries, so memory stays flat however long it runs.
 *
 * Kept as one row of bytes per entry, not as objects or as columns, because of what each costs a request.
 * Objects outlive the young generation, so each is copied and later marked: an entry object with its strings
 * cost a cached-token GET by id about 12% more CPU. Columns (a typed array or a list per field) spread one entry
 * over a dozen places in memory, each a likely cache miss by the time the next entry of the ring is written:
 * recording took three times as long inside the server as in a loop on its own. A row is a few adjacent cache
 * lines, written front to back. The few entries with extras (errors, searches, token issues, faults) or a value
 * too long for its row keep those in a side list, touched only for them.
 */
export const createJournal = (capacity = DEFAULT_JOURNAL_SIZE): Journal => {
  const rows = new ArrayBuffer(capacity * ROW_BYTES);
  const f64 = new Float64Array(rows);
  const u32 = new Uint32Array(rows);
  const u8 = new Uint8Array(rows);
  const u16 = new Uint16Array(rows);
  const bytes = Buffer.from(rows);
  // Each row's flags apart from it, in a small array that stays in cache: recording then only stores into the
  // row, which was last touched a whole ring ago, and never waits to load from it.
  const flags = new Uint8Array(capacity);
  const extras: (Extras | undefined)[] = new Array(capacity);
  const spilled: (Spilled | undefined)[] = new Array(capacity);
  const methods = createDictionary(MAX_DISTINCT);
  const operations = createDictionary(MAX_DISTINCT);
  const clients = createDictionary(MAX_DISTINCT);
  const locations = createDictionary(MAX_DISTINCT);
  const fingerprints = createDictionary(MAX_DISTINCT);
  let seq = 0;
  let oldest = 0;
  /** Where the last clear left the sequence: entries before it were cleared, not dropped. */
  let clearedAt = 0;

  /** Writes `value` at `offset` when it fits in `room` bytes; the length written, or SPILL. */
  const put = (value: string, offset: number, room: number): number => {
    // UTF-8 takes at least a byte per UTF-16 unit.
    const length = value.length;
    if (length > room) return SPILL;
    // ASCII (every generated request id, nearly every path) is copied here: in the server, a Buffer write (a call
    // into C++, which flattens a request id built by concatenation) cost more than the rest of recording.
    let i = 0;
    for (; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) break;
      u8[offset + i] = code;
    }
    return i === length ? length : putEncoded(value, offset, room);
  };
  const putEncoded = (value: string, offset: number, room: number): number => {
    const written = bytes.write(value, offset, room);
    // Node cuts a string short only before a character that did not fit in what was left, at most 4 bytes: with
    // more to spare it was written whole, so the common case needs no byte count of its own.
    return written <= room - 4 || Buffer.byteLength(value) === written ? written : SPILL;
  };

  const recordRequest: Journal['recordRequest'] = (
    time,
    method,
    path,
    status,
    duration,
    requestId,
    operation,
    location,
    facts,
  ) => {
    const i = seq % capacity;
    const row = i * ROW_BYTES;
    const previousFlags = flags[i]!;
    f64[(row + TIME) >> 3] = time;
    u32[(row + DURATION) >> 2] = Math.min(Math.round(duration * 1000), 0xffffffff);
    u16[(row + STATUS) >> 1] = status;
    const idLength = put(requestId, row + TEXT, TEXT_BYTES);
    const pathOffset = idLength === SPILL ? 0 : idLength;
    const pathLength = put(path, row + TEXT + pathOffset, TEXT_BYTES - pathOffset);
    u8[row + ID_LENGTH] = idLength;
    u8[row + PATH_LENGTH] = pathLength;
    const methodId = methods.idOf(method);
    const operationId = operations.idOf(operation);
    const clientId = clients.idOf(facts.clientId);
    const locationId = locations.idOf(location);
    const fingerprintId = fingerprints.idOf(facts.tokenFingerprint);
    u16[(row + METHOD) >> 1] = methodId;
    u16[(row + OPERATION) >> 1] = operationId;
    u16[(row + CLIENT) >> 1] = clientId;
    u16[(row + LOCATION) >> 1] = locationId;
    u16[(row + FINGERPRINT) >> 1] = fingerprintId;
    // Rare: a value too long for its row, or new to a dictionary past its bound, is kept whole.
    let spill: Spilled | undefined;
    if (
      pathLength === SPILL ||
      idLength === SPILL ||
      methodId === SPILL_ID ||
      operationId === SPILL_ID ||
      clientId === SPILL_ID ||
      locationId === SPILL_ID ||
      fingerprintId === SPILL_ID
    ) {
      spill = {};
      if (pathLength === SPILL) spill.path = path;
      if (idLength === SPILL) spill.requestId = requestId;
      if (methodId === SPILL_ID) spill.method = method;
      if (operationId === SPILL_ID && operation !== undefined) spill.operation = operation;
      if (clientId === SPILL_ID && facts.clientId !== undefined) spill.clientId = facts.clientId;
      if (locationId === SPILL_ID && location !== undefined) spill.location = location;
      if (fingerprintId === SPILL_ID && facts.tokenFingerprint !== undefined)
        spill.tokenFingerprint = facts.tokenFingerprint;
    }
    const withExtras = hasExtras(facts);
    // The side lists are written only for entries that use them, or to clear what the slot's last entry left.
    if (withExtras || (previousFlags & HAS_EXTRAS) !== 0)
      extras[i] = withExtras ? extrasOf(facts) : undefined;
    if (spill !== undefined || (previousFlags & HAS_SPILLED) !== 0) spilled[i] = spill;
    flags[i] = (withExtras ? HAS_EXTRAS : 0) | (spill === undefined ? 0 : HAS_SPILLED);
    seq++;
    if (seq - oldest > capacity) oldest = seq - capacity;
  };

  /** A string field of row `i`: from its dictionary, or spilled. */
  const text = (
    i: number,
    dictionary: ReturnType<typeof createDictionary>,
    at: number,
    field: keyof Spilled,
  ): string | undefined => {
    const id = u16[(i * ROW_BYTES + at) >> 1]!;
    return id === SPILL_ID ? spilled[i]?.[field] : dictionary.valueOf(id);
  };
  const requestIdOf = (i: number): string => {
    const row = i * ROW_BYTES;
    const length = u8[row + ID_LENGTH]!;
    return length === SPILL
      ? spilled[i]!.requestId!
      : bytes.toString('utf8', row + TEXT, row + TEXT + length);
  };
  const pathOf = (i: number): string => {
    const row = i * ROW_BYTES;
    const length = u8[row + PATH_LENGTH]!;
    if (length === SPILL) return spilled[i]!.path!;
    const idLength = u8[row + ID_LENGTH]!;
    const at = row + TEXT + (idLength === SPILL ? 0 : idLength);
    return bytes.toString('utf8', at, at + length);
  };

  const read = (at: number, i: number): JournalEntry => {
    const row = i * ROW_BYTES;
    const timeMs = f64[(row + TIME) >> 3]!;
    const entry: JournalEntry = {
      seq: at,
      time: new Date(timeMs).toISOString(),
      timeMs,
      method: text(i, methods, METHOD, 'method')!,
      path: pathOf(i),
      status: u16[(row + STATUS) >> 1]!,
      durationMs: u32[(row + DURATION) >> 2]! / 1000,
      requestId: requestIdOf(i),
    };
    const operation = text(i, operations, OPERATION, 'operation');
    const clientId = text(i, clients, CLIENT, 'clientId');
    const location = text(i, locations, LOCATION, 'location');
    const tokenFingerprint = text(i, fingerprints, FINGERPRINT, 'tokenFingerprint');
    if (operation !== undefined) entry.operation = operation;
    if (clientId !== undefined) entry.clientId = clientId;
    if (location !== undefined) entry.location = location;
    if (tokenFingerprint !== undefined) entry.tokenFingerprint = tokenFingerprint;
    return (flags[i]! & HAS_EXTRAS) === 0 ? entry : Object.assign(entry, extras[i]);
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
        const row = i * ROW_BYTES;
        if (filter.clientId !== undefined && text(i, clients, CLIENT, 'clientId') !== filter.clientId)
          continue;
        if (filter.location !== undefined && text(i, locations, LOCATION, 'location') !== filter.location)
          continue;
        if (
          filter.operation !== undefined &&
          text(i, operations, OPERATION, 'operation') !== filter.operation
        )
          continue;
        if (filter.status !== undefined && !statusMatches(filter.status, u16[(row + STATUS) >> 1]!)) continue;
        if (filter.sinceMs !== undefined && f64[(row + TIME) >> 3]! < filter.sinceMs) continue;
        found.push(read(at, i));
      }
      return filter.limit === undefined ? found : found.slice(Math.max(found.length - filter.limit, 0));
    },
    dropped: () => oldest - clearedAt,
    clear: () => {
      // Drop the references now, so what a cleared journal held can be collected.
      extras.fill(undefined);
      spilled.fill(undefined);
      flags.fill(0);
      oldest = seq;
      clearedAt = seq;
    },
  };
};
