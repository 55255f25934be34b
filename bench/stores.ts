import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { toInventoryRecord, toPurchaseOrderRecord } from '../src/retail/records.js';
import { createPostgresStore } from '../src/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../src/storage/store.js';
import {
  BENCH_LOCATION,
  batches,
  DATASET_VERSION,
  type DatasetSize,
  inventoryEntryAt,
  purchaseOrderAt,
} from './dataset.js';

export const DATABASE_URL =
  process.env['LARDER_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Where a backend's bench store lives: what a server child needs to open it. */
export type StoreSpec = { backend: 'sqlite'; path: string } | { backend: 'postgres'; schema: string };

export const openSpec = (spec: StoreSpec): Promise<Store> =>
  spec.backend === 'sqlite'
    ? createSqliteStore({ path: spec.path })
    : createPostgresStore({ databaseUrl: DATABASE_URL, schema: spec.schema, migrate: true });

export const postgresAvailable = async (): Promise<boolean> => {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
};

export const dropSchema = async (schema: string): Promise<void> => {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
};

/** Writes the dataset through the store's own import session (no validation: the records are generated valid). */
export const fillStore = async (store: Store, size: DatasetSize): Promise<void> => {
  const session = await store.beginImport({ id: BENCH_LOCATION, name: 'Bench location' });
  try {
    for (const batch of batches(size.purchaseOrders, purchaseOrderAt))
      await session.putPurchaseOrders(batch.map(toPurchaseOrderRecord));
    for (const batch of batches(size.inventoryEntries, inventoryEntryAt))
      await session.putInventoryEntries(batch.map(toInventoryRecord));
  } catch (error) {
    await session.rollback();
    throw error;
  }
  await session.commit();
};

const holdsDataset = async (store: Store, size: DatasetSize): Promise<boolean> => {
  const location = (await store.listLocations()).find((entry) => entry.id === BENCH_LOCATION);
  return (
    location !== undefined &&
    location.purchaseOrders === size.purchaseOrders &&
    location.inventoryEntries === size.inventoryEntries
  );
};

const sizeTag = (size: DatasetSize) =>
  `${size.purchaseOrders}po_${size.inventoryEntries}ih_v${DATASET_VERSION}`;

/**
 * The realistic store is slow to build (a million entries), so it is kept between runs in bench/.cache (SQLite)
 * or a dedicated schema (PostgreSQL) and rebuilt only when missing, incomplete, or `fresh` is asked for.
 */
export const ensureStore = async (
  backend: StoreSpec['backend'],
  size: DatasetSize,
  options: { cacheDir: string; fresh: boolean; log: (line: string) => void },
): Promise<StoreSpec> => {
  if (backend === 'sqlite') {
    mkdirSync(options.cacheDir, { recursive: true });
    const path = join(options.cacheDir, `larder-${sizeTag(size)}.db`);
    if (!options.fresh && existsSync(path)) {
      const store = await createSqliteStore({ path });
      const ready = await holdsDataset(store, size);
      await store.close();
      if (ready) return { backend, path };
    }
    options.log(`building the SQLite bench store (${sizeTag(size)}) …`);
    const building = `${path}.building`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    const store = await createSqliteStore({ path: building });
    await fillStore(store, size);
    await store.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    renameSync(building, path);
    return { backend, path };
  }
  const schema = `larder_bench_${sizeTag(size)}`;
  if (!options.fresh) {
    const store = await createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    const ready = await holdsDataset(store, size);
    await store.close();
    if (ready) return { backend, schema };
  }
  options.log(`building the PostgreSQL bench store (schema ${schema}) …`);
  await dropSchema(schema);
  const store = await createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await fillStore(store, size);
  await store.close();
  return { backend, schema };
};
