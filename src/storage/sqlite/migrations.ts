/**
 * SQLite schema, versioned through `PRAGMA user_version`. Every key leads with location_id, as on PostgreSQL.
 * Record bodies are the served JSON text. Rowid tables (not WITHOUT ROWID): 3 KB bodies would bloat the
 * b-tree leaves of a clustered index.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE locations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE purchase_orders (
    location_id TEXT NOT NULL,
    id TEXT NOT NULL,
    modified_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    archived INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (location_id, id)
  );
  CREATE INDEX purchase_orders_page ON purchase_orders (location_id, modified_at, id);
  -- The default search leaves archived orders out; old orders are mostly archived, so page over live ones only.
  CREATE INDEX purchase_orders_live_page ON purchase_orders (location_id, modified_at, id) WHERE archived = 0;

  CREATE TABLE inventory_entries (
    location_id TEXT NOT NULL,
    id TEXT NOT NULL,
    modified_at INTEGER NOT NULL,
    adjustment_type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (location_id, id)
  );
  CREATE INDEX inventory_entries_page ON inventory_entries (location_id, modified_at, id);
  CREATE INDEX inventory_entries_type_page ON inventory_entries (location_id, adjustment_type, modified_at, id);

  CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE clients (
    client_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    all_locations INTEGER NOT NULL,
    locations TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );

  CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    alg TEXT NOT NULL,
    private_jwk TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    created_at TEXT NOT NULL,
    retired_at TEXT
  );

  CREATE TABLE auth_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
  );
  INSERT INTO auth_version (id, version) VALUES (1, 0);
  `,
  // Every filter a search allows has an index path (search-sql.ts picks it by name): a status, with and without
  // archived orders. The inventory type index is renamed to the same naming (`<table>_<column>[_live]_page`).
  `
  CREATE INDEX purchase_orders_status_page ON purchase_orders (location_id, status, modified_at, id);
  CREATE INDEX purchase_orders_status_live_page ON purchase_orders (location_id, status, modified_at, id)
    WHERE archived = 0;
  DROP INDEX inventory_entries_type_page;
  CREATE INDEX inventory_entries_adjustment_type_page
    ON inventory_entries (location_id, adjustment_type, modified_at, id);
  `,
];
