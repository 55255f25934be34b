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
  /** PostgreSQL: connections in this process's pool. */
  poolSize?: number;
  /** Key-encryption key material: signing keys and secrets are sealed under it at rest. */
  keyEncryptionKey?: string;
}

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
  if (location.databaseUrl !== undefined) {
    const { createPostgresStore } = await import('./postgres/postgres-store.js');
    return createPostgresStore({
      databaseUrl: location.databaseUrl,
      migrate: location.migrate === true,
      ...(location.poolSize === undefined ? {} : { poolSize: location.poolSize }),
    });
  }
  const { createSqliteStore } = await import('./sqlite/sqlite-store.js');
  return createSqliteStore({ path: location.db });
};
