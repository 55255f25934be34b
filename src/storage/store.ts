import type { Watermark } from '@larder/client';
import type { Condition, KindCounts, RecordKind, RecordKindName, RecordRow } from '../records/kinds.js';
import type { PoolState } from '../shared/metrics.js';
import type { ClockSetting } from '../shared/virtual-clock.js';

/** The demo locations that keep trading, and the last day generated for them (UTC, YYYY-MM-DD). */
export interface LiveDemoState {
  seed: number;
  /** The first generation (what a reset brings back): its days of history and last day. */
  firstDays: number;
  firstEndDate: string;
  /** Generated so far: later days extend the first generation's history, from the same start. */
  days: number;
  endDate: string;
  locations: { id: string; locationIndex: number }[];
}

/** Where `larder pull` into one local location got to: the source it pulls from and a watermark per kind. */
export interface PullState {
  /** The source's base URL and location id: a watermark means nothing for another source. */
  from: string;
  location: string;
  watermarks: Partial<Record<RecordKindName, Watermark>>;
  /** When the last run committed (ISO). */
  pulledAt: string;
}

/**
 * The one storage contract. SQLite (embedded) and PostgreSQL (scale-out) implement it; the contract suite in
 * test/storage/ runs unchanged against both. Every key leads with the location so each query touches one
 * location's data (and stays single-shard when the tables are distributed by location).
 *
 * Records are stored as the exact JSON they are served as (`json`), next to the few columns that index them.
 */

/** Keyset position: rows are ordered by (modifiedAt, id) ascending. */
export interface Cursor {
  /** `modifiedDate` as epoch milliseconds (UTC). */
  modifiedAt: number;
  /** Lower-case UUID. */
  id: string;
}

/**
 * The stored JSON as served: text, or its UTF-8 bytes where the driver can hand those out undecoded (PostgreSQL),
 * which saves decoding it only to encode it again for the response.
 */
export type StoredJson = string | Uint8Array;

/** A page row: the keyset position plus the stored JSON, spliced into the response as is. */
export interface StoredRow {
  modifiedAt: number;
  id: string;
  json: StoredJson;
}

/** One keyset page of one kind's records at one location. */
/** A page of records ready to serve (RecordStore.page). */
export interface StoredPage {
  /** The records' JSON in order, to be joined with commas; a chunk may already hold several records so joined. */
  chunks: readonly StoredJson[];
  /** How many records the chunks hold. */
  count: number;
  /** The keyset position of the page's last record (undefined when the page is empty). */
  last: Cursor | undefined;
  /** More records match after this page. */
  more: boolean;
  /**
   * Bytes free before and after the page's one chunk, in that chunk's own buffer, which the reader may overwrite:
   * the page envelope is then written around the records instead of copying them into a new buffer.
   */
  room?: { before: number; after: number };
}

export interface RecordSearch {
  locationId: string;
  /** Inclusive lower bound on modifiedAt (epoch ms). */
  modifiedFrom?: number;
  /** Exclusive upper bound on modifiedAt (epoch ms). */
  modifiedBefore?: number;
  /** Conditions on the kind's indexed columns (a RecordFilter's `where`). */
  where: readonly Condition[];
  /** Return rows strictly after this position. */
  after?: Cursor;
  /** Maximum rows to return. */
  limit: number;
}

export interface LocationInfo {
  id: string;
  name: string;
  createdAt: string;
}

/** A location with its record count per kind, under each kind's `countField`. */
export type LocationSummary = LocationInfo & Record<RecordKind['countField'], number>;

/** Rows written per kind, keyed by kind name. */
export type ImportCounts = KindCounts;

/**
 * An all-or-nothing write of many records into one location. Nothing is visible to readers until `commit`;
 * `rollback` (or a failed commit) leaves the store as it was. Upsert by id within the location.
 */
export interface ImportSession {
  put(kind: RecordKind, rows: readonly RecordRow[]): Promise<void>;
  commit(): Promise<ImportCounts>;
  rollback(): Promise<void>;
}

export interface ImportSessionOptions {
  /**
   * The caller reads and writes nothing else in this store until the session ends (a command-line bulk load).
   * SQLite may then write the session straight into the database file, without the WAL, whenever no other
   * process has the file open; other processes that open it meanwhile wait for the commit. Default false.
   */
  exclusive?: boolean;
}

export interface ClientRecord {
  clientId: string;
  name: string;
  /** Keyed SHA-256 of the secret (hex). The secret itself is never stored (demo client excepted, see demo). */
  secretHash: string;
  scopes: string[];
  allLocations: boolean;
  locations: string[];
  createdAt: string;
  revokedAt: string | null;
}

export interface ClientUpdate {
  name?: string;
  /** A new secret's keyed hash (rotate-secret): the old secret stops working. */
  secretHash?: string;
  scopes?: string[];
  allLocations?: boolean;
  locations?: string[];
  revokedAt?: string | null;
}

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  /** Private JWK as JSON text. */
  privateJwk: string;
  /** Public JWK as JSON text. */
  publicJwk: string;
  createdAt: string;
  /** Set when a newer key became active; tokens it signed stay verifiable until they expire. */
  retiredAt: string | null;
}

/** Records of every kind (see src/records/kinds.ts), read and written by kind. */
export interface RecordStore {
  /** The stored JSON of one record, or undefined. The id is matched ignoring letter case. */
  get(kind: RecordKind, locationId: string, id: string): Promise<StoredJson | undefined>;
  /** One page in keyset order (modifiedAt, id). */
  search(kind: RecordKind, query: RecordSearch): Promise<StoredRow[]>;
  /**
   * The earliest and latest `modifiedDate` (epoch ms) of a location's records of this kind, or undefined when it
   * holds none (the console's location overview; one index probe each end).
   */
  span(kind: RecordKind, locationId: string): Promise<{ first: number; last: number } | undefined>;
  /**
   * One page as the API serves it: at most `limit` records, their JSON ready to be joined into the page body, the
   * position of the last one, and whether records follow. Each backend hands out the cheapest form it has.
   */
  page(kind: RecordKind, query: RecordSearch): Promise<StoredPage>;
  /** Every stored record of a location, in keyset order, in batches (for `larder check` and exports). */
  scan(kind: RecordKind, locationId: string, batchSize?: number): AsyncIterable<string[]>;
  /** Creates the location if needed (name defaults to the id). */
  beginImport(
    location: { id: string; name?: string },
    options?: ImportSessionOptions,
  ): Promise<ImportSession>;
}

export interface LocationStore {
  /** Creates the location with the id as default name; renames it only when a name is given. */
  upsert(location: { id: string; name?: string }): Promise<LocationInfo>;
  get(id: string): Promise<LocationInfo | undefined>;
  /** Ordered by id, with each location's record counts. */
  list(): Promise<LocationSummary[]>;
  /** Removes the location and every record of it, atomically; false when there was no such location. */
  delete(id: string): Promise<boolean>;
}

export interface AuthStore {
  /** Fails with StoreError STORE_DUPLICATE when the client id exists. */
  createClient(client: ClientRecord): Promise<void>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  listClients(): Promise<ClientRecord[]>;
  /** Returns the updated record, or undefined for an unknown client. */
  updateClient(clientId: string, update: ClientUpdate): Promise<ClientRecord | undefined>;
  /** Removes a client for good; false when there was none. */
  deleteClient(clientId: string): Promise<boolean>;

  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Inserts `key` as the active key and retires the previously active one, atomically. */
  rotateSigningKey(key: SigningKeyRecord): Promise<void>;
  /** Deletes the key; an unknown kid is a no-op that leaves the auth version as it is. */
  deleteSigningKey(kid: string): Promise<void>;
  /** Replaces a key's stored private JWK with the same key sealed under a key-encryption key (no version bump). */
  sealSigningKey(kid: string, privateJwk: string): Promise<void>;

  /**
   * A number that changes whenever clients, grants or signing keys change. Instances poll it (cheaply) to
   * see revocations, grant changes and key rotations made elsewhere within a second.
   */
  version(): Promise<number>;
}

/** One stored value: read, overwrite, or set unless set (returning what is stored; race-safe across instances). */
export interface Setting<T> {
  get(): Promise<T | undefined>;
  set(value: T): Promise<void>;
  ensure(candidate: T): Promise<T>;
}

/** A stored value changed from what it is to what `change` makes of it, atomically across instances. */
export interface UpdatableSetting<T> extends Setting<T> {
  update(change: (current: T | undefined) => T): Promise<T>;
}

/** The small named values Larder keeps, one typed accessor each (stored names: src/storage/settings.ts). */
export interface SettingsStore {
  /** HMAC key of page tokens. */
  pageTokenSecret: Setting<string>;
  /** HMAC key of client-secret hashes. */
  clientSecretHashKey: Setting<string>;
  /** The longest access-token lifetime any instance issued with, in seconds (bounds signing-key pruning). */
  maxTokenTtlSeconds: Setting<number>;
  /** The demo client's credentials, kept in the embedded database only (the secret sealed under a KEK if given). */
  demoClient: Setting<{ clientId: string; clientSecret: string }>;
  /** The bench's dataset key (bench/stores.ts). */
  benchDataset: Setting<string>;
  /** The sandbox's virtual clock, shared by every instance (an advance adds to what is stored, not what was seen). */
  clock: UpdatableSetting<ClockSetting>;
  /** The admin token a demo database was first started with (kept, like the demo secret, to print again). */
  demoAdminToken: Setting<string>;
  /** How far the live demo locations have been generated. */
  liveDemo: Setting<LiveDemoState>;
  /**
   * Decided once, at the first start or the first import: a demo database, or a plain one that never gets demo
   * data or the demo client, whatever later starts ask for.
   */
  databaseKind: Setting<DatabaseKind>;
  /** Where `larder pull` into a local location got to (one per location). */
  pullState(locationId: string): Setting<PullState>;
}

export type DatabaseKind = 'demo' | 'plain';

/** What a backend can do, for the few callers that adapt to it (never the engine's name). */
export interface StoreCapabilities {
  /** Writes run on this thread (SQLite): CPU work of an import is better moved to a worker. */
  writesOnMainThread: boolean;
  /** A local file owned by this Larder (SQLite), not a shared operators' server: the demo may fill it. */
  embedded: boolean;
}

/**
 * The one storage contract, by role. SQLite (embedded) and PostgreSQL (scale-out) implement it; the contract suite
 * in test/storage/ runs unchanged against both. Expected failures are StoreErrors (src/shared/errors.ts), alike on
 * both backends.
 */
export interface Store {
  readonly records: RecordStore;
  readonly locations: LocationStore;
  readonly auth: AuthStore;
  readonly settings: SettingsStore;
  readonly capabilities: StoreCapabilities;
  /** The engine's short name ('sqlite', 'postgres'), for banners and /readyz. */
  describe(): string;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
  /** The connection pool right now (PostgreSQL), for metrics; absent on an embedded store. */
  poolState?(): PoolState;
  close(): Promise<void>;
}
