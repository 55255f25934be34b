import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createPostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { runningInCi } from '../helpers/ci.js';

/**
 * The backends every storage test runs against (Kysely's per-dialect loop): the same tests, unchanged, for each.
 * PostgreSQL is used when reachable, otherwise its tests are skipped with the reason; in CI (CI=true) an
 * unreachable PostgreSQL fails them instead (see postgresUnreachable).
 */

export const postgresUrl = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The URL without its password, for messages. */
export const shownUrl = (url: string): string => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

/**
 * Undefined when PostgreSQL answers, else why not (the skip message). In CI an unreachable PostgreSQL is an
 * error, never a skip: this throws, so every test file that asks fails instead of passing without running.
 */
export const postgresUnreachable = async (url = postgresUrl): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  let reason: string | undefined;
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    reason = `PostgreSQL not reachable at ${shownUrl(url)} (${(error as Error).message || String(error)})`;
  } finally {
    await client.end().catch(() => {});
  }
  if (reason === undefined) return undefined;
  if (runningInCi())
    throw new Error(
      `${reason}; CI is set, so PostgreSQL tests fail rather than skip (.ci/run starts the server)`,
    );
  return `${reason}; skipped outside CI, set DATABASE_URL to run these tests`;
};

/** Runs `sql` on a short-lived connection outside any store (schema management, fault injection). */
export const adminQuery = async (sql: string, values: unknown[] = []): Promise<pg.QueryResult> => {
  const client = new pg.Client({ connectionString: postgresUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
};

export const freshSchemaName = (): string => `larder_test_${process.pid}_${randomBytes(4).toString('hex')}`;

/** One isolated database for a test file: a store on it, more stores on the same data, and cleanup. */
export interface BackendInstance {
  store: Store;
  /** Another store on the same data, like a second server instance. */
  openPeer(): Promise<Store>;
  /** The settings table read with SQL, outside any store: what the database holds at rest. */
  rawSettings(): Promise<Record<string, string>>;
  destroy(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Set when the backend cannot run here: the tests are skipped with this message. */
  skip: string | undefined;
  create(): Promise<BackendInstance>;
}

const withPeers = async (
  open: () => Promise<Store>,
  rawSettings: () => Promise<{ name: string; value: string }[]>,
  cleanup: () => Promise<void>,
): Promise<BackendInstance> => {
  const stores = [await open()];
  return {
    store: stores[0]!,
    openPeer: async () => {
      const peer = await open();
      stores.push(peer);
      return peer;
    },
    rawSettings: async () => Object.fromEntries((await rawSettings()).map((row) => [row.name, row.value])),
    destroy: async () => {
      await Promise.all(stores.map((store) => store.close()));
      await cleanup();
    },
  };
};

const sqlite: Backend = {
  name: 'sqlite',
  skip: undefined,
  create: async () => {
    const dir = await mkdtemp(join(tmpdir(), 'larder-store-'));
    const path = join(dir, 'larder.db');
    return withPeers(
      () => createSqliteStore({ path }),
      async () => {
        const db = new Database(path, { readonly: true });
        try {
          return db.prepare<[], { name: string; value: string }>('SELECT name, value FROM settings').all();
        } finally {
          db.close();
        }
      },
      () => rm(dir, { recursive: true, force: true }),
    );
  },
};

const postgres = (skip: string | undefined): Backend => ({
  name: 'postgres',
  skip,
  create: async () => {
    const schema = freshSchemaName();
    let migrate = true;
    return withPeers(
      async () => {
        const store = await createPostgresStore({ databaseUrl: postgresUrl, schema, poolSize: 4, migrate });
        migrate = false;
        return store;
      },
      async () => (await adminQuery(`SELECT name, value FROM ${schema}.settings`)).rows,
      async () => {
        await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    );
  },
});

export const backends = async (): Promise<Backend[]> => [sqlite, postgres(await postgresUnreachable())];

/** A suite per backend; an unavailable backend shows as one skipped test carrying the reason. */
export const describeBackend = (title: string, backend: Backend, body: () => void): void => {
  if (backend.skip === undefined) describe(title, body);
  else test(title, { skip: backend.skip }, () => {});
};
