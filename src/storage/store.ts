import type { InventoryHistoryAdjustmentType, PurchaseOrderStatus } from '../records/schemas.js';

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

export interface PurchaseOrderRecord {
  id: string;
  modifiedAt: number;
  status: PurchaseOrderStatus;
  archived: boolean;
  json: string;
}

export interface InventoryRecord {
  id: string;
  modifiedAt: number;
  adjustmentType: InventoryHistoryAdjustmentType;
  json: string;
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

interface SearchCommon {
  locationId: string;
  /** Inclusive lower bound on modifiedAt (epoch ms). */
  modifiedFrom?: number;
  /** Exclusive upper bound on modifiedAt (epoch ms). */
  modifiedBefore?: number;
  /** Return rows strictly after this position. */
  after?: Cursor;
  /** Maximum rows to return. */
  limit: number;
}

export interface PurchaseOrderSearch extends SearchCommon {
  /** Empty: any status. */
  statuses: readonly PurchaseOrderStatus[];
  includeArchived: boolean;
}

export interface InventorySearch extends SearchCommon {
  /** Empty: any type. */
  adjustmentTypes: readonly InventoryHistoryAdjustmentType[];
}

export interface LocationInfo {
  id: string;
  name: string;
  createdAt: string;
}

export interface LocationSummary extends LocationInfo {
  purchaseOrders: number;
  inventoryEntries: number;
}

export interface ImportCounts {
  purchaseOrders: number;
  inventoryEntries: number;
}

/**
 * An all-or-nothing write of many records into one location. Nothing is visible to readers until `commit`;
 * `rollback` (or a failed commit) leaves the store as it was. Upsert by id within the location.
 */
export interface ImportSession {
  putPurchaseOrders(rows: readonly PurchaseOrderRecord[]): Promise<void>;
  putInventoryEntries(rows: readonly InventoryRecord[]): Promise<void>;
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

export interface Store {
  readonly kind: 'sqlite' | 'postgres';

  // Locations
  upsertLocation(location: { id: string; name?: string }): Promise<LocationInfo>;
  getLocation(id: string): Promise<LocationInfo | undefined>;
  listLocations(): Promise<LocationSummary[]>;

  // Retail reads (the hot path)
  getPurchaseOrder(locationId: string, id: string): Promise<StoredJson | undefined>;
  getInventoryEntry(locationId: string, id: string): Promise<StoredJson | undefined>;
  searchPurchaseOrders(query: PurchaseOrderSearch): Promise<StoredRow[]>;
  searchInventory(query: InventorySearch): Promise<StoredRow[]>;
  /** Every stored record of a location, in keyset order, in batches (for `larder check` and exports). */
  scanPurchaseOrders(locationId: string, batchSize?: number): AsyncIterable<string[]>;
  scanInventory(locationId: string, batchSize?: number): AsyncIterable<string[]>;

  // Writes
  /** Creates the location if needed (name defaults to the id). */
  beginImport(
    location: { id: string; name?: string },
    options?: ImportSessionOptions,
  ): Promise<ImportSession>;

  // Settings: small named values (page-token HMAC secret, demo credentials, ...)
  getSetting(name: string): Promise<string | undefined>;
  setSetting(name: string, value: string): Promise<void>;
  /** Sets the value unless one exists; returns the value that is stored (race-safe across instances). */
  ensureSetting(name: string, value: string): Promise<string>;

  // API clients
  createClient(client: ClientRecord): Promise<void>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  listClients(): Promise<ClientRecord[]>;
  /** Returns the updated record, or undefined for an unknown client. */
  updateClient(clientId: string, update: ClientUpdate): Promise<ClientRecord | undefined>;

  // Signing keys
  listSigningKeys(): Promise<SigningKeyRecord[]>;
  /** Inserts `key` as the active key and retires the previously active one, atomically. */
  rotateSigningKey(key: SigningKeyRecord): Promise<void>;
  deleteSigningKey(kid: string): Promise<void>;

  /**
   * A number that changes whenever clients, grants or signing keys change. Instances poll it (cheaply) to
   * see revocations, grant changes and key rotations made elsewhere within a second.
   */
  authVersion(): Promise<number>;

  close(): Promise<void>;
}
