import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { seedStore } from '../src/seed/seed-store.js';
import { createPostgresStore } from '../src/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../src/storage/store.js';
import { BENCH_LOCATION, benchGenerateOptions, datasetKey } from './dataset.js';

export interface DatasetSize {
  purchaseOrders: number;
  inventoryEntries: number;
}

export const DATABASE_URL =
  process.env['LARDER_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Where a backend's bench store lives: what a server child needs to open it. */
export type StoreSpec =
  /** `cacheMb`: the page cache Larder opens it with (`--sqlite-cache-mb`); absent, Larder's default. */
  { backend: 'sqlite'; path: string; cacheMb?: number } | { backend: 'postgres'; schema: string };

export const openSpec = (spec: StoreSpec): Promise<Store> =>
  spec.backend === 'sqlite'
    ? createSqliteStore({ path: spec.path, ...(spec.cacheMb === undefined ? {} : { cacheMb: spec.cacheMb }) })
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

/** Writes the bench location with the demo generator, then marks the store as holding it (a rebuild is keyed by it). */
const fillStore = async (store: Store, scale: number): Promise<void> => {
  await seedStore(store, { ...benchGenerateOptions(scale), locations: 1, exclusive: true });
  await store.settings.benchDataset.set(datasetKey(scale));
};

const holdsDataset = async (store: Store, scale: number): Promise<boolean> =>
  (await store.settings.benchDataset.get()) === datasetKey(scale);

/** Record counts of a bench location, for the report. */
export const datasetSize = async (spec: StoreSpec, locationId = BENCH_LOCATION): Promise<DatasetSize> => {
  const store = await openSpec(spec);
  try {
    const location = (await store.locations.list()).find((entry) => entry.id === locationId);
    return {
      purchaseOrders: location?.purchaseOrders ?? 0,
      inventoryEntries: location?.inventoryEntries ?? 0,
    };
  } finally {
    await store.close();
  }
};

/**
 * `count` ids spread evenly over a bench location's records in keyset order, read from the tables directly (the
 * Store contract has no id listing; both backends hold the same generated records).
 */
export const sampleIds = async (
  spec: StoreSpec,
  table: 'purchase_orders' | 'inventory_entries',
  count: number,
  locationId = BENCH_LOCATION,
): Promise<string[]> => {
  const sql = `SELECT id FROM ${table} WHERE location_id = $location ORDER BY modified_at, id`;
  let ids: string[];
  if (spec.backend === 'sqlite') {
    const db = new Database(spec.path, { readonly: true });
    ids = db.prepare<{ location: string }, string>(sql).pluck().all({ location: locationId });
    db.close();
  } else {
    const client = new pg.Client({
      connectionString: DATABASE_URL,
      options: `-c search_path=${spec.schema}`,
    });
    await client.connect();
    try {
      const result = await client.query<{ id: string }>(sql.replace('$location', '$1'), [locationId]);
      ids = result.rows.map((row) => row.id);
    } finally {
      await client.end();
    }
  }
  const step = ids.length / Math.min(count, ids.length);
  return Array.from({ length: Math.min(count, ids.length) }, (_, i) => ids[Math.floor(i * step)]!);
};

/**
 * Reads a SQLite store's file (and its WAL) once, so its pages are in the OS page cache before the first run, as
 * the report says they are. A machine that just built the store need not have kept them: one was seen holding 0.6
 * GB of a freshly written 2 GB file, and its first SQLite runs read from disk. PostgreSQL keeps its own buffers,
 * warmed by each run's warm-up.
 */
export const warmPageCache = async (spec: StoreSpec, log: (line: string) => void): Promise<void> => {
  if (spec.backend !== 'sqlite') return;
  const files = [spec.path, `${spec.path}-wal`].filter((file) => existsSync(file));
  const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
  log(`reading the SQLite store into the OS page cache (${(bytes / 2 ** 30).toFixed(1)} GB) …`);
  for (const file of files) for await (const _chunk of createReadStream(file, { highWaterMark: 1 << 20 }));
};

/**
 * The realistic store is slow to build (a million entries), so it is kept between runs in bench/.cache (SQLite)
 * or a dedicated schema (PostgreSQL) and rebuilt only when missing, incomplete, or `fresh` is asked for.
 */
export const ensureStore = async (
  backend: StoreSpec['backend'],
  scale: number,
  options: { cacheDir: string; fresh: boolean; log: (line: string) => void },
): Promise<StoreSpec> => {
  if (backend === 'sqlite') {
    mkdirSync(options.cacheDir, { recursive: true });
    const path = join(options.cacheDir, `larder-${datasetKey(scale)}.db`);
    if (!options.fresh && existsSync(path)) {
      const store = await createSqliteStore({ path });
      const ready = await holdsDataset(store, scale);
      await store.close();
      if (ready) return { backend, path };
    }
    options.log(`building the SQLite bench store (${datasetKey(scale)}) …`);
    const building = `${path}.building`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    const store = await createSqliteStore({ path: building });
    await fillStore(store, scale);
    await store.close();
    for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    renameSync(building, path);
    return { backend, path };
  }
  const schema = `larder_bench_${datasetKey(scale)}`;
  if (!options.fresh) {
    const store = await createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
    const ready = await holdsDataset(store, scale);
    await store.close();
    if (ready) return { backend, schema };
  }
  options.log(`building the PostgreSQL bench store (schema ${schema}) …`);
  await dropSchema(schema);
  const store = await createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  await fillStore(store, scale);
  await store.close();
  // What autovacuum does some time after a bulk load; without statistics the planner sorts every match of a
  // type + date filter (30 ms against 0.8 ms for that search).
  const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  await client.connect();
  await client.query('ANALYZE').finally(() => client.end());
  return { backend, schema };
};
