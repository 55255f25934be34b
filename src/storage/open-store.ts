import { parse as parseConnectionString } from 'pg-connection-string';
import { StoreError } from '../shared/errors.js';
import { createKeyEncryptionKey } from '../shared/key-encryption.js';
import { sealSecrets } from './sealed-store.js';
import type { Store } from './store.js';

export interface StoreLocation {
  /** SQLite file (the embedded default; migrated on open). */
  db: string;
  /** PostgreSQL URL; when set it wins over `db`. */
  databaseUrl?: string;
  /** PostgreSQL: apply pending migrations instead of refusing an out-of-date schema. */
  migrate?: boolean;
  /** PostgreSQL: how the command migrates as it starts, offered when it refuses an old schema (only `serve` can). */
  migrateAtStart?: string;
  /** PostgreSQL: connections in this process's pool. */
  poolSize?: number;
  /** SQLite: each connection's page cache, in MiB. */
  sqliteCacheMb?: number;
  /** Key-encryption key material: signing keys and secrets are sealed under it at rest. */
  keyEncryptionKey?: string;
}

/**
 * Where a store lives, for messages: the SQLite path, or the PostgreSQL user, host (or socket directory), port and
 * database, never the password. Read by pg-connection-string, the parser node-postgres itself uses: a WHATWG URL
 * refuses libpq forms the driver accepts, such as `postgres://user@/db?host=/var/run/postgresql`.
 */
export const describeLocation = (location: StoreLocation): string => {
  if (location.databaseUrl === undefined) return `the SQLite database ${location.db}`;
  // Neither a URL nor a socket path (a libpq `host=… password=…` string): the driver reads it as a path below a
  // placeholder host, so its "database" is the whole string, password and all.
  if (!/^([a-z][a-z0-9+.-]*:|\/)/i.test(location.databaseUrl))
    return 'PostgreSQL (the --database-url is not a URL such as postgres://USER@HOST/DB)';
  try {
    const { user, host, port, database } = parseConnectionString(location.databaseUrl);
    return `PostgreSQL at ${user ? `${user}@` : ''}${host || 'localhost'}${port ? `:${port}` : ''}/${database ?? ''}`;
  } catch {
    return 'PostgreSQL (the --database-url is not a valid URL)';
  }
};

/** The messages down an error's cause chain (a refused connection sits under the driver's own words). */
const causes = (error: unknown): string[] => {
  const found: string[] = [];
  for (let at: unknown = error, depth = 0; at !== undefined && depth < 5; depth++) {
    if (at instanceof AggregateError && at.errors.length > 0) {
      found.push(
        ...at.errors.map((inner: unknown) => (inner instanceof Error ? inner.message : String(inner))),
      );
      break;
    }
    const message = at instanceof Error ? at.message : String(at);
    if (message !== '' && !found.some((seen) => seen.includes(message))) found.push(message);
    at = at instanceof Error ? at.cause : undefined;
  }
  return found;
};

/** Opens the configured backend; PostgreSQL code is loaded only when it is used. */
export const openStore = async (location: StoreLocation): Promise<Store> => {
  // Checked before the database is touched: a bad KEK creates or changes nothing.
  const kek =
    location.keyEncryptionKey === undefined ? undefined : createKeyEncryptionKey(location.keyEncryptionKey);
  const store = await openBackend(location);
  try {
    return await sealSecrets(store, kek);
  } catch (error) {
    await store.close();
    throw error;
  }
};

const openBackend = async (location: StoreLocation): Promise<Store> => {
  try {
    if (location.databaseUrl !== undefined) {
      const { createPostgresStore } = await import('./postgres/postgres-store.js');
      return await createPostgresStore({
        databaseUrl: location.databaseUrl,
        migrate: location.migrate === true,
        ...(location.migrateAtStart === undefined ? {} : { migrateAtStart: location.migrateAtStart }),
        ...(location.poolSize === undefined ? {} : { poolSize: location.poolSize }),
      });
    }
    const { createSqliteStore } = await import('./sqlite/sqlite-store.js');
    return await createSqliteStore({
      path: location.db,
      ...(location.sqliteCacheMb === undefined ? {} : { cacheMb: location.sqliteCacheMb }),
    });
  } catch (error) {
    throw storeFailure('open', location, error);
  }
};

/**
 * A failure to open or migrate a store, naming the store and the causes: "Cannot open database because the
 * directory does not exist" or "PostgreSQL is unreachable" says neither which file or server nor why.
 */
export const storeFailure = (
  doing: 'open' | 'migrate',
  location: StoreLocation,
  error: unknown,
): StoreError =>
  new StoreError(
    error instanceof StoreError ? error.code : 'STORE_UNAVAILABLE',
    `Cannot ${doing} ${describeLocation(location)}: ${causes(error)
      .map((message) => message.replace(/\.$/, ''))
      .join(': ')}.`,
    { cause: error },
  );
