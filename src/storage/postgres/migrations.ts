import type pg from 'pg';
import { StoreError } from '../../shared/errors.js';

/**
 * Versioned schema. Each migration runs once, in order, inside one transaction with its row in
 * schema_migrations; a migration is never edited after release, changes come as a new version.
 *
 * Every table holding location data leads its keys and indexes with location_id, so each query is
 * single-location (and single-shard once distributed by location_id, see docs/citus.md). Ids are COLLATE "C" so
 * keyset order is byte order, as on SQLite. Records are `text`, not jsonb: the stored bytes are the served bytes.
 * Purchase orders (~3 KB) stay inline and uncompressed up to a full page (toast_tuple_target): imports skip pglz
 * and reads skip detoasting (measured ~1.5× faster imports), at the cost of ~2–3× the disk for those bodies.
 */
const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE locations (
        location_id text COLLATE "C" NOT NULL PRIMARY KEY,
        name text NOT NULL,
        created_at text NOT NULL
      );

      CREATE TABLE purchase_orders (
        location_id text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        modified_at bigint NOT NULL,
        status text NOT NULL,
        archived boolean NOT NULL,
        json text NOT NULL,
        PRIMARY KEY (location_id, id)
      ) WITH (toast_tuple_target = 8160);
      CREATE INDEX purchase_orders_keyset ON purchase_orders (location_id, modified_at, id);
      -- The default search leaves archived orders out; old orders are mostly archived, so page over live ones.
      CREATE INDEX purchase_orders_live_keyset ON purchase_orders (location_id, modified_at, id) WHERE NOT archived;

      CREATE TABLE inventory_entries (
        location_id text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        modified_at bigint NOT NULL,
        adjustment_type text NOT NULL,
        json text NOT NULL,
        PRIMARY KEY (location_id, id)
      );
      CREATE INDEX inventory_entries_keyset ON inventory_entries (location_id, modified_at, id);
      CREATE INDEX inventory_entries_type_keyset
        ON inventory_entries (location_id, adjustment_type, modified_at, id);

      CREATE TABLE settings (
        name text COLLATE "C" NOT NULL PRIMARY KEY,
        value text NOT NULL
      );

      CREATE TABLE clients (
        client_id text COLLATE "C" NOT NULL PRIMARY KEY,
        name text NOT NULL,
        secret_hash text NOT NULL,
        scopes text[] NOT NULL,
        all_locations boolean NOT NULL,
        locations text[] NOT NULL,
        created_at text NOT NULL,
        revoked_at text
      );

      CREATE TABLE signing_keys (
        kid text COLLATE "C" NOT NULL PRIMARY KEY,
        alg text NOT NULL,
        private_jwk text NOT NULL,
        public_jwk text NOT NULL,
        created_at text NOT NULL,
        retired_at text
      );

      -- One row, bumped in the same transaction as every client or key change; instances poll it.
      CREATE TABLE auth_version (
        singleton boolean NOT NULL PRIMARY KEY DEFAULT true CHECK (singleton),
        version bigint NOT NULL
      );
      INSERT INTO auth_version (version) VALUES (1);
    `,
  },
  {
    version: 2,
    name: 'status-indexes',
    // Every filter a search allows has an index path: a status, with and without archived orders (keyset-search.ts
    // reads one branch per status from these and merges them in keyset order).
    sql: `
      CREATE INDEX purchase_orders_status_keyset ON purchase_orders (location_id, status, modified_at, id);
      CREATE INDEX purchase_orders_status_live_keyset
        ON purchase_orders (location_id, status, modified_at, id) WHERE NOT archived;
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/** Same key in every process, so concurrent `larder migrate` runs (or --migrate instances) take turns. */
const MIGRATION_LOCK_KEY = 0x1a4de4;

const UNDEFINED_TABLE = '42P01';

/** The applied schema version, 0 when the database was never migrated. */
export const schemaVersion = async (client: pg.ClientBase): Promise<number> => {
  try {
    const result = await client.query<{ version: number | null }>(
      'SELECT max(version)::int AS version FROM schema_migrations',
    );
    return result.rows[0]?.version ?? 0;
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return 0;
    throw error;
  }
};

/**
 * Refuses a schema this build cannot serve, saying what to run about it: `larder migrate`, which every user has,
 * and `migrateAtStart` (`larder serve --migrate …`) when the command that opened the store can migrate itself.
 */
export const assertSchemaCurrent = (version: number, migrateAtStart?: string): void => {
  if (version < LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      'STORE_SCHEMA',
      `The PostgreSQL schema is at version ${version}, this Larder needs version ${LATEST_SCHEMA_VERSION}. ` +
        `Run \`larder migrate --database-url …\` first${migrateAtStart === undefined ? '' : `, or start with \`${migrateAtStart}\``}.`,
    );
  }
  if (version > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      'STORE_SCHEMA',
      `The PostgreSQL schema is at version ${version}, newer than this Larder knows (${LATEST_SCHEMA_VERSION}). ` +
        'Upgrade Larder; an older build must not write to a newer schema.',
    );
  }
};

export interface MigrationResult {
  from: number;
  to: number;
}

/** A day: bounded, as every wait is, but far beyond any index build. */
const MIGRATION_READ_TIMEOUT_MS = 86_400_000;

/**
 * Brings the schema (of the current search_path) up to LATEST_SCHEMA_VERSION in one transaction. The caller
 * supplies a connected client whose search_path names the target schema.
 */
export const migrate = async (client: pg.ClientBase, schema?: string): Promise<MigrationResult> => {
  // Index builds on large tables, and waiting for another process's migration, may take longer than the
  // serving statement and read timeouts.
  // node-postgres honours a per-query `query_timeout`, which its types do not declare.
  const run = (text: string, values?: unknown[]) =>
    client.query({
      text,
      ...(values === undefined ? {} : { values }),
      query_timeout: MIGRATION_READ_TIMEOUT_MS,
    } as pg.QueryConfig);
  await run('BEGIN');
  try {
    await run('SET LOCAL statement_timeout = 0');
    await run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    if (schema !== undefined) await run(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await run(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer NOT NULL PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const from = await schemaVersion(client);
    if (from > LATEST_SCHEMA_VERSION) assertSchemaCurrent(from);
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await run(migration.sql);
      await run('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await run('COMMIT');
    return { from, to: LATEST_SCHEMA_VERSION };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
};
