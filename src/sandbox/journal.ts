import type { JournalRow } from './journal-entry.js';

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
  /** Only entries recorded at or after this `seq`: a follower's high-water mark (`next()` when it last listed). */
  fromSeq?: number;
}

/** An entry as recorded: its ISO `time` is made when read, its `seq` and `stamp` when recorded. */
export type RecordedEntry = Omit<JournalRow, 'seq' | 'time' | 'stamp'>;

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
  list(filter?: JournalFilter): JournalRow[];
  /** Entries recorded since the last clear that the ring no longer holds (the oldest, overwritten). */
  dropped(): number;
  /** The `seq` the next entry will get: a listing's high-water mark, whatever its filter. */
  next(): number;
  /** Of the entries recorded at or after `fromSeq`, how many the ring dropped (not cleared) unlisted. */
  droppedFrom(fromSeq: number): number;
  clear(): void;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;

/** What most requests leave out (errors, searches, token issues, faults): kept as one object only when present. */
type Extras = Pick<
  JournalRow,
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

/**
 * Client-chosen text an entry keeps (its path, location header and page token) is cut to this many characters,
 * and a search body whose JSON is longer than MAX_KEPT_BODY is not kept: each may be up to 16 KB (a request head)
 * or 64 KiB (a body, which as parsed objects can take ten times that), and 10,000 entries of them took the
 * server's heap past its limit. A real path, location id (at most 200) or page token is far shorter.
 */
export const MAX_KEPT_TEXT = 512;
export const MAX_KEPT_BODY = 2048;

/**
 * `value` cut to MAX_KEPT_TEXT characters (with `…`, never between the halves of a surrogate pair), in a string of
 * its own: a slice of the request's URL or header would keep the whole of it alive for as long as the entry.
 */
const keptText = (value: string): string => {
  let end = value.length;
  if (end > MAX_KEPT_TEXT) {
    end = MAX_KEPT_TEXT;
    const last = value.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
  }
  // join builds a new flat string, unit by unit; a slice, or a concatenation with one, would point into `value`.
  const copy = value.slice(0, end).split('').join('');
  return end < value.length ? `${copy}…` : copy;
};

/** Extras as kept: a search body as its JSON text (a few bytes a field, where parsed objects take dozens). */
type KeptExtras = Omit<Extras, 'body'> & { bodyJson?: string };

const extrasOf = (facts: EntryFacts): KeptExtras => {
  const extras: Record<string, unknown> = {};
  for (const field of EXTRA_FIELDS) if (facts[field] !== undefined) extras[field] = facts[field];
  if (extras.body !== undefined) {
    const json = JSON.stringify(extras.body);
    delete extras.body;
    // A body too long to keep is left out, as an unparsed one is: the report never takes it for another.
    if (json.length <= MAX_KEPT_BODY) extras.bodyJson = json;
  }
  // A page token is a slice of the URL, whatever else its query carries.
  if (typeof extras.pageToken === 'string') extras.pageToken = keptText(extras.pageToken);
  return extras as KeptExtras;
};

const extrasOfRow = ({ bodyJson, ...extras }: KeptExtras): Extras =>
  bodyJson === undefined ? extras : { ...extras, body: JSON.parse(bodyJson) };

/**
 * One entry's row, in bytes: the numbers and the ids of its repeated strings, then its request id and its path.
 * Held as strings, each entry's would outlive the young generation, be copied and promoted, and keep the whole
 * request URL alive (a path is a slice of it).
 *
 * 72 bytes: recording a GET by id touches a cache line and an eighth of a 720 KB ring. A request id and an id in a
 * path that are UUIDs in canonical form (every generated request id, every record id) take their 16 bytes, and a
 * path's part before such an id (`/v1/purchaseOrders/`) is a dictionary id, as is the path of a named operation
 * (`/v1/purchaseOrders/search`). Other text goes in the row's 32 bytes of text room, or in the entry's overflow
 * row (64 more bytes, in a second ring touched only for such entries); past that, it is kept whole apart. With
 * 128-byte rows, two lines a request and a 1.3 MB ring, a cached-token GET by id cost about 1 µs more CPU: the
 * ring's writes pushed SQLite's pages and the young generation out of the CPU's caches (measured by
 * `npm run bench -- --cost --separate-processes`, against a 64-entry ring). The stamp's 8 bytes did not fit the
 * 64-byte row (one byte was spare); grown by them, the ring is an eighth larger.
 */
const ROW_BYTES = 72;
const TIME = 0; // f64
/** f64: the host's monotonic clock when the entry was recorded, in ns (see `stampNow`). */
const STAMP = 8;
const DURATION = 16; // u32 microseconds (over an hour is kept as the most it holds)
const STATUS = 20; // u16
const METHOD = 22; // u16 dictionary ids from here on
const OPERATION = 24;
const CLIENT = 26;
const LOCATION = 28;
const FINGERPRINT = 30;
/** The path's dictionary id: the whole path, or its part before a UUID. */
const PATH = 32;
/** u8: how the request id and the path are held (ID_* | PATH_*). */
const FORMS = 34;
/** u8 each: where in the text room (see `at`) the request id and the path's text or UUID start, and their length. */
const ID_AT = 35;
const ID_LENGTH = 36;
const PATH_AT = 37;
const PATH_LENGTH = 38;
/** The text room: 32 bytes in the row, then 64 in the overflow row; a value never straddles the two. */
const TEXT = 40;
const ROW_ROOM = ROW_BYTES - TEXT;
const OVERFLOW_BYTES = 64;
const ROOM = ROW_ROOM + OVERFLOW_BYTES;
/** Request id forms. */
const ID_TEXT = 0;
const ID_UUID = 1;
/** Path forms (shifted into FORMS). */
const PATH_TEXT = 0 << 2;
const PATH_UUID = 1 << 2;
const PATH_WHOLE = 2 << 2;
const PATH_FORM = 3 << 2;
const UUID_BYTES = 16;
const UUID_LENGTH = 36;
/** Row flags: the entry has extras; some value did not fit its row and is kept in `spilled`. */
const HAS_EXTRAS = 1;
const HAS_SPILLED = 2;
/** A length or an id saying the value is in `spilled`. */
const SPILL = 0xff;
const SPILL_ID = 0xffff;

const HEX_DIGITS = '0123456789abcdef';
/** The value of a lower-case hex digit's char code, -1 for any other. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE[HEX_DIGITS.charCodeAt(i)] = i;
const isDashAt = (position: number): boolean =>
  position === 8 || position === 13 || position === 18 || position === 23;

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
    const kept = keptText(value);
    ids.set(kept, values.length);
    values.push(kept);
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

/**
 * An entry's stamp, taken as it is recorded: the host's monotonic clock in ns. On Linux process.hrtime reads
 * CLOCK_MONOTONIC, which is system-wide, so the stamps of the workers of one host compare, where their `seq`s,
 * each from a counter of its own, do not. Only for ordering, never shown as a time: its zero is the host's boot.
 * A double holds it to the ns for the first 104 days of uptime, to a few ns after.
 */
const stampNow = (): number => Number(process.hrtime.bigint());

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
  // The overflow rows: the OS maps their pages only once written, so a journal of GETs never pays for them.
  const overflow = Buffer.alloc(capacity * OVERFLOW_BYTES);
  // Each row's flags apart from it, in a small array that stays in cache: recording then only stores into the
  // row, which was last touched a whole ring ago, and never waits to load from it.
  const flags = new Uint8Array(capacity);
  const extras: (KeptExtras | undefined)[] = new Array(capacity);
  const spilled: (Spilled | undefined)[] = new Array(capacity);
  const methods = createDictionary(MAX_DISTINCT);
  const operations = createDictionary(MAX_DISTINCT);
  const clients = createDictionary(MAX_DISTINCT);
  const locations = createDictionary(MAX_DISTINCT);
  const fingerprints = createDictionary(MAX_DISTINCT);
  const paths = createDictionary(MAX_DISTINCT);
  let seq = 0;
  let oldest = 0;
  /** Where the last clear left the sequence: entries before it were cleared, not dropped. */
  let clearedAt = 0;

  /** Which bytes hold position `at` of a text room (the row's, then the overflow row's), and where for row `i`. */
  const roomOf = (at: number): Uint8Array => (at < ROW_ROOM ? u8 : overflow);
  const offsetOf = (i: number, at: number): number =>
    at < ROW_ROOM ? i * ROW_BYTES + TEXT + at : i * OVERFLOW_BYTES + at - ROW_ROOM;
  /** Where `length` bytes fit from position `from` of the text room without straddling its two parts, or -1. */
  const fitAt = (from: number, length: number): number => {
    if (from + length <= ROW_ROOM) return from;
    const start = from < ROW_ROOM ? ROW_ROOM : from;
    return start + length <= ROOM ? start : -1;
  };

  /** Writes `value` at `offset` of `target` when it fits in `room` bytes; the length written, or SPILL. */
  const put = (value: string, target: Uint8Array, offset: number, room: number): number => {
    // UTF-8 takes at least a byte per UTF-16 unit.
    const length = value.length;
    if (length > room) return SPILL;
    // ASCII (nearly every path and client-chosen request id) is copied here: in the server, a Buffer write (a call
    // into C++, which flattens a string built by concatenation) cost more than the rest of recording.
    let i = 0;
    for (; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) break;
      target[offset + i] = code;
    }
    return i === length ? length : putEncoded(value, target === u8 ? bytes : overflow, offset, room);
  };
  const putEncoded = (value: string, target: Buffer, offset: number, room: number): number => {
    const written = target.write(value, offset, room);
    // Node cuts a string short only before a character that did not fit in what was left, at most 4 bytes: with
    // more to spare it was written whole, so the common case needs no byte count of its own.
    return written <= room - 4 || Buffer.byteLength(value) === written ? written : SPILL;
  };
  /** Where `putText` placed its value. */
  let placedAt = 0;
  /** Text from position `from` of row `i`'s text room: the row's part if it fits, else the overflow's; or SPILL. */
  const putText = (value: string, i: number, from: number): number => {
    if (from + value.length <= ROW_ROOM) {
      const length = put(value, u8, offsetOf(i, from), ROW_ROOM - from);
      placedAt = from;
      if (length !== SPILL) return length;
    }
    const start = from < ROW_ROOM ? ROW_ROOM : from;
    placedAt = start;
    return put(value, overflow, offsetOf(i, start), ROOM - start);
  };
  /**
   * The 16 bytes of the canonical (lower-case) UUID at `start` of `value`, written at `offset` of `target`;
   * false, with what was written meaningless, if there is none.
   */
  const putUuid = (value: string, start: number, target: Uint8Array, offset: number): boolean => {
    let byte = 0;
    for (let position = 0; position < UUID_LENGTH; position++) {
      const code = value.charCodeAt(start + position);
      if (isDashAt(position)) {
        if (code !== 45) return false;
        continue;
      }
      const digit = code < 128 ? HEX_VALUE[code]! : -1;
      if (digit < 0) return false;
      if ((byte & 1) === 0) target[offset + (byte >> 1)] = digit << 4;
      else target[offset + (byte >> 1)]! |= digit;
      byte++;
    }
    return true;
  };
  const uuidOf = (target: Uint8Array, offset: number): string => {
    let text = '';
    for (let k = 0; k < UUID_BYTES; k++) {
      if (k === 4 || k === 6 || k === 8 || k === 10) text += '-';
      const value = target[offset + k]!;
      text += HEX_DIGITS[value >> 4]! + HEX_DIGITS[value & 15]!;
    }
    return text;
  };
  // Consecutive GETs by id share the path's part before the id: a comparison, not a slice and a lookup.
  let lastPrefix = '';
  let lastPrefixId = 0;
  const prefixIdOf = (path: string, end: number): number => {
    if (end !== lastPrefix.length || !path.startsWith(lastPrefix)) {
      lastPrefix = path.slice(0, end);
      lastPrefixId = paths.idOf(lastPrefix);
    }
    return lastPrefixId;
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
    // Rare: only a client's mistake or probe is this long. Cut first, so every form below holds the cut value.
    if (path.length > MAX_KEPT_TEXT) path = keptText(path);
    if (location !== undefined && location.length > MAX_KEPT_TEXT) location = keptText(location);
    const i = seq % capacity;
    const row = i * ROW_BYTES;
    const previousFlags = flags[i]!;
    f64[(row + TIME) >> 3] = time;
    f64[(row + STAMP) >> 3] = stampNow();
    u32[(row + DURATION) >> 2] = Math.min(Math.round(duration * 1000), 0xffffffff);
    u16[(row + STATUS) >> 1] = status;
    let forms: number;
    let idAt = 0;
    let idLength: number;
    if (requestId.length === UUID_LENGTH && putUuid(requestId, 0, u8, row + TEXT)) {
      forms = ID_UUID;
      idLength = UUID_BYTES;
    } else {
      forms = ID_TEXT;
      idLength = putText(requestId, i, 0);
      idAt = placedAt;
    }
    const from = idLength === SPILL ? 0 : idAt + idLength;
    let pathId = 0;
    let pathAt = 0;
    let pathLength: number;
    const uuidStart = path.length - UUID_LENGTH;
    const uuidAt = uuidStart > 0 && path.charCodeAt(uuidStart - 1) === 47 ? fitAt(from, UUID_BYTES) : -1;
    if (uuidAt !== -1 && putUuid(path, uuidStart, roomOf(uuidAt), offsetOf(i, uuidAt))) {
      forms |= PATH_UUID;
      pathId = prefixIdOf(path, uuidStart);
      pathAt = uuidAt;
      pathLength = pathId === SPILL_ID ? SPILL : UUID_BYTES;
    } else if (method === 'POST' && operation !== undefined) {
      // A named POST operation's path (a search, a login, a token request) is one of a handful.
      forms |= PATH_WHOLE;
      pathId = paths.idOf(path);
      pathLength = pathId === SPILL_ID ? SPILL : 0;
    } else {
      forms |= PATH_TEXT;
      pathLength = putText(path, i, from);
      pathAt = placedAt;
    }
    u8[row + FORMS] = forms;
    u8[row + ID_AT] = idAt;
    u8[row + ID_LENGTH] = idLength;
    u8[row + PATH_AT] = pathAt;
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
    u16[(row + PATH) >> 1] = pathId;
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
      if (pathLength === SPILL) spill.path = keptText(path);
      if (idLength === SPILL) spill.requestId = requestId;
      if (methodId === SPILL_ID) spill.method = method;
      if (operationId === SPILL_ID && operation !== undefined) spill.operation = operation;
      if (clientId === SPILL_ID && facts.clientId !== undefined) spill.clientId = facts.clientId;
      if (locationId === SPILL_ID && location !== undefined) spill.location = keptText(location);
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
  /** Text of row `i`'s text room. */
  const textAt = (i: number, at: number, length: number): string => {
    const target = at < ROW_ROOM ? bytes : overflow;
    const offset = offsetOf(i, at);
    return target.toString('utf8', offset, offset + length);
  };
  const requestIdOf = (i: number): string => {
    const row = i * ROW_BYTES;
    const length = u8[row + ID_LENGTH]!;
    if (length === SPILL) return spilled[i]!.requestId!;
    return (u8[row + FORMS]! & ID_UUID) !== 0 ? uuidOf(u8, row + TEXT) : textAt(i, u8[row + ID_AT]!, length);
  };
  const pathOf = (i: number): string => {
    const row = i * ROW_BYTES;
    const length = u8[row + PATH_LENGTH]!;
    if (length === SPILL) return spilled[i]!.path!;
    const form = u8[row + FORMS]! & PATH_FORM;
    const at = u8[row + PATH_AT]!;
    const dictionaryPath = paths.valueOf(u16[(row + PATH) >> 1]!) ?? '';
    if (form === PATH_WHOLE) return dictionaryPath;
    if (form === PATH_UUID) return dictionaryPath + uuidOf(roomOf(at), offsetOf(i, at));
    return textAt(i, at, length);
  };

  const read = (at: number, i: number): JournalRow => {
    const row = i * ROW_BYTES;
    const timeMs = f64[(row + TIME) >> 3]!;
    const entry: JournalRow = {
      seq: at,
      time: new Date(timeMs).toISOString(),
      timeMs,
      stamp: f64[(row + STAMP) >> 3]!,
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
    return (flags[i]! & HAS_EXTRAS) === 0 ? entry : Object.assign(entry, extrasOfRow(extras[i]!));
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
      const found: JournalRow[] = [];
      for (let at = Math.max(oldest, filter.fromSeq ?? 0); at < seq; at++) {
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
    next: () => seq,
    droppedFrom: (fromSeq) => Math.max(oldest - Math.max(fromSeq, clearedAt), 0),
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
