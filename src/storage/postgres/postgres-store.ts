import pg from 'pg';
import { RECORD_KINDS, type RecordKind } from '../../records/kinds.js';
import { StoreError } from '../../shared/errors.js';
import { createSettingsStore } from '../settings.js';
import type {
  AuthStore,
  ClientRecord,
  ClientUpdate,
  Cursor,
  ImportSession,
  LocationInfo,
  LocationSummary,
  RecordSearch,
  RecordStore,
  SigningKeyRecord,
  Store,
  StoredJson,
  StoredPage,
  StoredRow,
} from '../store.js';
import { checkout } from './checkout.js';
import { connectionConfig, type PostgresConnectionOptions } from './connection.js';
import { postgresImportSession } from './import-session.js';
import { type KeysetSearch, keysetSearch } from './keyset-search.js';
import { createLookupBatcher } from './lookup-batcher.js';
import { assertSchemaCurrent, migrate, schemaVersion } from './migrations.js';
import { PageQuery } from './page-query.js';
import { isUnavailableError, toStoreError } from './pg-errors.js';
import { assertRawRowHooks, RAW_COLUMNS, RawRowsClient } from './raw-rows.js';

export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** Connections in this process's pool (default 10). */
  poolSize?: number;
  /** Apply pending migrations instead of refusing an out-of-date schema (`serve --migrate`). */
  migrate?: boolean;
  /** How the command opening the store migrates as it starts (`larder serve --migrate …`), to say so when refusing. */
  migrateAtStart?: string;
}

const DEFAULT_SCAN_BATCH = 1000;
/** A first page's guess at its records' size (bytes each); later pages of the shape start from what they saw. */
const INITIAL_BYTES_PER_ROW = 1024;

const UPSERT_LOCATION = `
  INSERT INTO locations (location_id, name, created_at) VALUES ($1, coalesce($2, $1), $3)
  ON CONFLICT (location_id) DO UPDATE SET name = coalesce($2, locations.name)
  RETURNING location_id AS id, name, created_at AS "createdAt"`;

const CLIENT_COLUMNS = `client_id AS "clientId", name, secret_hash AS "secretHash", scopes,
  all_locations AS "allLocations", locations, created_at AS "createdAt", revoked_at AS "revokedAt"`;

const KEY_COLUMNS = `kid, alg, private_jwk AS "privateJwk", public_jwk AS "publicJwk", created_at AS "createdAt",
  retired_at AS "retiredAt"`;

const BUMP_AUTH_VERSION = 'UPDATE auth_version SET version = version + 1';

/** Opens a pool on a migrated schema (or migrates it when told to). Fails with STORE_UNAVAILABLE when PG is down. */
export const createPostgresStore = async (options: PostgresStoreOptions): Promise<Store> => {
  // Fails loudly, before any connection, when pg's internals no longer have what raw-rows.ts replaces.
  assertRawRowHooks();
  const pool = new pg.Pool({
    ...connectionConfig(options),
    max: options.poolSize ?? 10,
    Client: RawRowsClient,
  });
  // An idle pooled connection that dies (server restart, pg_terminate_backend) is dropped by the pool and
  // reported here; without a listener the event would crash the process. The next query opens a new one.
  pool.on('error', () => {});
  /** Connections in use, by a pool.query or a checkout: close() cuts them (see there). */
  const inUse = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_error, client) => inUse.delete(client));

  /** Set as close() begins: work still waiting on the database then was cut by a stop (see toStoreError). */
  let closing = false;
  const isClosing = () => closing;
  const storeError = (error: unknown): unknown => toStoreError(error, closing);

  const withClient = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const { client, release } = await checkout(pool, isClosing);
    try {
      const result = await work(client);
      release();
      return result;
    } catch (error) {
      release(error);
      throw storeError(error);
    }
  };

  const transaction = <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });

  /**
   * Reads retry once on a lost connection: after a restart or pg_terminate_backend the pool may still hold dead
   * connections, and a second attempt gets a fresh one. A statement timeout is not retried (it would only add
   * load), nor is anything once the store is closing (the ending pool would refuse the second attempt).
   */
  const retryOnce = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (closing || !isUnavailableError(error) || (error as { code?: unknown }).code === '57014') {
        throw storeError(error);
      }
    }
    try {
      return await run();
    } catch (error) {
      throw storeError(error);
    }
  };

  const read = async <R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<R[]> =>
    retryOnce(async () => (await pool.query<R>(query)).rows);

  const write = async (query: pg.QueryConfig): Promise<pg.QueryResult> => {
    try {
      return await pool.query(query);
    } catch (error) {
      throw storeError(error);
    }
  };

  try {
    await withClient(async (client) => {
      if (options.migrate === true) await migrate(client, options.schema);
      else assertSchemaCurrent(await schemaVersion(client), options.migrateAtStart);
    });
  } catch (error) {
    await pool.end();
    throw error;
  }

  /** Open imports, rolled back by close(): the pool cannot end while they hold connections. */
  const imports = new Set<ImportSession>();
  /** Closing twice is harmless, as on SQLite: a second call waits for the first rather than ending the pool again. */
  let closed: Promise<void> | undefined;

  /** Retail pages: the bodies as the bytes received (raw-rows.ts), the keyset position decoded here. */
  const search = async (query: KeysetSearch): Promise<StoredRow[]> => {
    const rows = await read<Record<'modifiedAt' | 'id' | 'json', Buffer>>({
      ...keysetSearch(query),
      types: RAW_COLUMNS,
    });
    return rows.map((row) => ({
      modifiedAt: Number(row.modifiedAt.toString('latin1')),
      id: row.id.toString('latin1'),
      json: row.json,
    }));
  };

  /** Each statement shape's record size so far: a page's buffer starts at what the shape's last pages needed. */
  const pageSizes = new Map<string, { bytesPerRow: number }>();
  /** A retail page read into the buffer it is served from (page-query.ts); retried once as `read` is. */
  const readPage = async (table: string, query: RecordSearch): Promise<StoredPage> => {
    const config = keysetSearch({ table, ...query, limit: query.limit + 1 });
    const name = config.name ?? table;
    let sizeHint = pageSizes.get(name);
    if (sizeHint === undefined) {
      sizeHint = { bytesPerRow: INITIAL_BYTES_PER_ROW };
      pageSizes.set(name, sizeHint);
    }
    // A PageQuery is single-use (it holds its page's buffer), so each attempt makes its own.
    return retryOnce(
      () =>
        pool.query(
          new PageQuery({ ...config, types: RAW_COLUMNS }, query.limit, sizeHint),
        ) as unknown as Promise<StoredPage>,
    );
  };

  async function* scan(table: string, locationId: string, batchSize = DEFAULT_SCAN_BATCH) {
    let after: Cursor | undefined;
    for (;;) {
      const rows = await read<StoredRow & { json: string }>(
        keysetSearch({ table, locationId, limit: batchSize, ...(after === undefined ? {} : { after }) }),
      );
      if (rows.length > 0) yield rows.map((row) => row.json);
      if (rows.length < batchSize) return;
      after = rows.at(-1);
    }
  }

  /** By-id reads of one turn, batched per location into one query per table. */
  const byId = (table: string) => {
    const batcher = createLookupBatcher(async (locationId, ids) => {
      const rows = await read<Record<'id' | 'json', Buffer>>({
        name: `${table}_get`,
        text: `SELECT id, json FROM ${table} WHERE location_id = $1 AND id = ANY($2::text[])`,
        values: [locationId, ids],
        types: RAW_COLUMNS,
      });
      return new Map(rows.map((row) => [row.id.toString('latin1'), row.json]));
    });
    return (locationId: string, id: string): Promise<StoredJson | undefined> =>
      batcher.get(locationId, id.toLowerCase());
  };
  const getters = new Map(RECORD_KINDS.map((kind) => [kind.table, byId(kind.table)]));

  const records: RecordStore = {
    get: (kind: RecordKind, locationId, id) => getters.get(kind.table)!(locationId, id),
    search: (kind, query) => search({ table: kind.table, ...query }),
    span: async (kind, locationId) => {
      // bigint arrives as text: epoch milliseconds fit a double exactly.
      const [row] = await read<{ first: string | null; last: string | null }>({
        name: `${kind.table}_span`,
        text: `SELECT min(modified_at) AS first, max(modified_at) AS last FROM ${kind.table} WHERE location_id = $1`,
        values: [locationId],
      });
      return row?.first == null || row.last == null
        ? undefined
        : { first: Number(row.first), last: Number(row.last) };
    },
    page: (kind, query) => readPage(kind.table, query),
    scan: (kind, locationId, batchSize) => scan(kind.table, locationId, batchSize),
    beginImport: async ({ id, name }) => {
      // The location row is written inside the import's transaction: a rolled-back import into a new location
      // leaves no location behind either.
      const connection = await checkout(pool, isClosing);
      try {
        await connection.client.query('BEGIN');
        await connection.client.query(UPSERT_LOCATION, [id, name ?? null, new Date().toISOString()]);
      } catch (error) {
        await connection.client.query('ROLLBACK').catch(() => {});
        connection.release(error);
        throw storeError(error);
      }
      const session = postgresImportSession(connection, id, () => imports.delete(session), isClosing);
      imports.add(session);
      return session;
    },
  };

  const auth: AuthStore = {
    createClient: (client: ClientRecord) =>
      transaction(async (db) => {
        await db.query(
          `INSERT INTO clients (client_id, name, secret_hash, scopes, all_locations, locations, created_at,
             revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            client.clientId,
            client.name,
            client.secretHash,
            client.scopes,
            client.allLocations,
            client.locations,
            client.createdAt,
            client.revokedAt,
          ],
        );
        await db.query(BUMP_AUTH_VERSION);
      }),

    getClient: async (clientId) => {
      const rows = await read<ClientRecord>({
        name: 'clients_get',
        text: `SELECT ${CLIENT_COLUMNS} FROM clients WHERE client_id = $1`,
        values: [clientId],
      });
      return rows[0];
    },

    listClients: () =>
      read<ClientRecord>({ text: `SELECT ${CLIENT_COLUMNS} FROM clients ORDER BY created_at, client_id` }),

    updateClient: (clientId, update: ClientUpdate) =>
      transaction(async (db) => {
        const result = await db.query<ClientRecord>(
          `UPDATE clients SET scopes = coalesce($2, scopes), all_locations = coalesce($3, all_locations),
             locations = coalesce($4, locations), revoked_at = CASE WHEN $5 THEN $6 ELSE revoked_at END,
             name = coalesce($7, name), secret_hash = coalesce($8, secret_hash)
           WHERE client_id = $1 RETURNING ${CLIENT_COLUMNS}`,
          [
            clientId,
            update.scopes ?? null,
            update.allLocations ?? null,
            update.locations ?? null,
            update.revokedAt !== undefined,
            update.revokedAt ?? null,
            update.name ?? null,
            update.secretHash ?? null,
          ],
        );
        if (result.rows[0] !== undefined) await db.query(BUMP_AUTH_VERSION);
        return result.rows[0];
      }),

    listSigningKeys: () =>
      read<SigningKeyRecord>({ text: `SELECT ${KEY_COLUMNS} FROM signing_keys ORDER BY created_at, kid` }),

    rotateSigningKey: (key) =>
      transaction(async (db) => {
        // Bumping first takes the auth_version row lock, so concurrent rotations run one after the other and each
        // retires the key the previous one inserted (leaving exactly one active key).
        await db.query(BUMP_AUTH_VERSION);
        await db.query('UPDATE signing_keys SET retired_at = $1 WHERE retired_at IS NULL', [key.createdAt]);
        await db.query(
          `INSERT INTO signing_keys (kid, alg, private_jwk, public_jwk, created_at, retired_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [key.kid, key.alg, key.privateJwk, key.publicJwk, key.createdAt, key.retiredAt],
        );
      }),

    deleteClient: (clientId) =>
      transaction(async (db) => {
        const result = await db.query('DELETE FROM clients WHERE client_id = $1', [clientId]);
        if (result.rowCount !== 0) await db.query(BUMP_AUTH_VERSION);
        return result.rowCount !== 0;
      }),

    sealSigningKey: async (kid, privateJwk) => {
      await write({
        text: 'UPDATE signing_keys SET private_jwk = $1 WHERE kid = $2',
        values: [privateJwk, kid],
      });
    },

    deleteSigningKey: (kid) =>
      transaction(async (db) => {
        const result = await db.query('DELETE FROM signing_keys WHERE kid = $1', [kid]);
        if (result.rowCount !== 0) await db.query(BUMP_AUTH_VERSION);
      }),

    version: async () => {
      const rows = await read<{ version: number }>({
        name: 'auth_version_get',
        text: 'SELECT version FROM auth_version',
      });
      return rows[0]?.version ?? 0;
    },
  };

  const readSetting = async (name: string): Promise<string | undefined> => {
    const rows = await read<{ value: string }>({
      name: 'settings_get',
      text: 'SELECT value FROM settings WHERE name = $1',
      values: [name],
    });
    return rows[0]?.value;
  };

  return {
    records,

    locations: {
      upsert: async ({ id, name }) => {
        const result = await write({
          text: UPSERT_LOCATION,
          values: [id, name ?? null, new Date().toISOString()],
        });
        return result.rows[0] as LocationInfo;
      },

      get: async (id) => {
        const rows = await read<LocationInfo>({
          name: 'locations_get',
          text: 'SELECT location_id AS id, name, created_at AS "createdAt" FROM locations WHERE location_id = $1',
          values: [id],
        });
        return rows[0];
      },

      // Grouped subqueries joined on location_id rather than correlated counts: the form Citus pushes down to the
      // shards when the tables are distributed by location.
      list: () =>
        read<LocationSummary>({
          text: `
          SELECT l.location_id AS id, l.name, l.created_at AS "createdAt"${RECORD_KINDS.map(
            (kind, i) => `, coalesce(c${i}.count, 0) AS "${kind.countField}"`,
          ).join('')}
          FROM locations l${RECORD_KINDS.map(
            (kind, i) => `
          LEFT JOIN (SELECT location_id, count(*) FROM ${kind.table} GROUP BY location_id) c${i} USING (location_id)`,
          ).join('')}
          ORDER BY l.location_id`,
        }),

      delete: (id) =>
        transaction(async (db) => {
          for (const kind of RECORD_KINDS)
            await db.query(`DELETE FROM ${kind.table} WHERE location_id = $1`, [id]);
          const result = await db.query('DELETE FROM locations WHERE location_id = $1', [id]);
          return result.rowCount !== 0;
        }),
    },

    auth,

    settings: createSettingsStore({
      get: readSetting,
      set: async (values) => {
        const upsert =
          'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = $2';
        if (values.length === 1) {
          await write({ text: upsert, values: [...values[0]!] });
          return;
        }
        await transaction(async (db) => {
          for (const [name, value] of values) await db.query(upsert, [name, value]);
        });
      },
      ensure: async (name, value) => {
        // Two statements on purpose: after ON CONFLICT DO NOTHING waited for a concurrent inserter, only a new
        // statement's snapshot sees that inserter's row.
        const inserted = await write({
          text: 'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
          values: [name, value],
        });
        if (inserted.rowCount === 1) return value;
        const stored = await readSetting(name);
        if (stored === undefined) {
          throw new StoreError('STORE_NOT_FOUND', `Setting ${name} vanished while being ensured.`);
        }
        return stored;
      },
      swap: async (name, expected, value) => {
        const changed = await write(
          expected === undefined
            ? {
                text: 'INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
                values: [name, value],
              }
            : {
                text: 'UPDATE settings SET value = $2 WHERE name = $1 AND value = $3',
                values: [name, value, expected],
              },
        );
        return changed.rowCount === 1;
      },
    }),

    capabilities: { writesOnMainThread: false, embedded: false },
    describe: () => 'postgres',
    ping: async () => {
      await read({ name: 'ping', text: 'SELECT 1' });
    },
    poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),

    close: () => {
      closing = true;
      closed ??= (async () => {
        await Promise.all([...imports].map((session) => session.rollback()));
        // The server closes the store only after it stopped serving, so a statement still running belongs to cut
        // work. On a silent connection it would hold pool.end() for its whole read timeout; ending the client
        // drops the socket, the statement fails (STORE_CLOSED to its caller) and the pool lets go at once.
        for (const client of inUse) client.end().catch(() => {});
        await pool.end();
      })();
      return closed;
    },
  };
};
