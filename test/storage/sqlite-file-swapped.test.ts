import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { openStore } from '../../src/storage/open-store.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import { fileWithOrders } from './damaged-file.js';
import { client, idFor, purchaseOrder, rejectsWithStoreError, T0, text } from './records.js';

/**
 * The SQLite file changed under an open store, as an operator (or a stray `cp`) does it: overwritten in place,
 * emptied, replaced through a rename, its WAL removed. SQLite sees an in-place change only when it reads the file
 * again: another connection's checkpoint restarts the WAL, so every connection drops its page cache at its next
 * read (as after any other process's commit). That is how the tests reach the cache miss, without waiting.
 */

const NOT_A_DATABASE = 'These bytes are not a SQLite database.\n'.repeat(2000);

/** Another process's checkpoint: the store's connections re-read the file at their next read. */
const checkpointElsewhere = (path: string): void => {
  const other = new Database(path);
  try {
    const [result] = other.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    assert.equal(result?.busy, 0);
  } finally {
    other.close();
  }
};

const withFile = async (run: (path: string, location: string) => Promise<void>): Promise<void> => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-swapped-'));
  try {
    const path = join(dir, 'larder.db');
    await run(path, await fileWithOrders(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** The store open on `path`, having served a read by id and a search (its reader connection is open and warm). */
const warmStore = async (path: string, location: string): Promise<Store> => {
  const store = await createSqliteStore({ path });
  assert.equal(
    text(await store.records.get(PURCHASE_ORDERS, location, idFor(1))),
    purchaseOrder(1, T0 + 1).json,
  );
  await store.ping();
  return store;
};

test('SQLite file overwritten with other bytes under an open store: the next read after the cache is dropped fails STORE_DAMAGED (SQLITE_NOTADB), latched; a new open refuses it saying what to do', async () => {
  await withFile(async (path, location) => {
    const store = await warmStore(path, location);
    try {
      checkpointElsewhere(path);
      await writeFile(path, NOT_A_DATABASE);
      const read = await rejectsWithStoreError(
        store.records.get(PURCHASE_ORDERS, location, idFor(2)),
        'STORE_DAMAGED',
        /SQLITE_NOTADB/,
      );
      assert.ok(read.message.includes(path), read.message);
      assert.match(read.message, /restore it from a backup/);
      // Latched: the ping, whose page may still be cached, says so from now on, as do writes.
      await rejectsWithStoreError(store.ping(), 'STORE_DAMAGED', /SQLITE_NOTADB/);
      await rejectsWithStoreError(store.auth.createClient(client()), 'STORE_DAMAGED');
      // A write must not have put Larder's pages back over the bytes the operator put there.
      assert.equal(await readFile(path, 'utf8'), NOT_A_DATABASE);
    } finally {
      await store.close();
    }
    // A restart is refused, naming the file and what to do.
    await rejectsWithStoreError(
      openStore({ db: path }),
      'STORE_DAMAGED',
      /^Cannot open the SQLite database .+larder\.db: .+larder\.db is not a SQLite database \(SQLITE_NOTADB: file is not a database\): if it was Larder's, it was overwritten or replaced; restore it from a backup\.$/,
    );
  });
});

test('SQLite file truncated to zero bytes under an open store: reads fail STORE_DAMAGED, on a connection opened after too, latched', async () => {
  await withFile(async (path, location) => {
    // Its retail reader connection is not open yet: it opens on the emptied file, which SQLite takes for a new
    // database with no tables ("no such table"), not for damage.
    const store = await createSqliteStore({ path });
    try {
      checkpointElsewhere(path);
      await truncate(path, 0);
      await rejectsWithStoreError(
        store.records.get(PURCHASE_ORDERS, location, idFor(2)),
        'STORE_DAMAGED',
        /larder\.db was emptied/,
      );
      await rejectsWithStoreError(store.ping(), 'STORE_DAMAGED');
      await rejectsWithStoreError(store.records.beginImport({ id: location }), 'STORE_DAMAGED');
      assert.equal((await stat(path)).size, 0);
    } finally {
      await store.close();
    }
  });
});

test('SQLite file replaced through a rename under an open store: the store latches it (ping, writes, imports) and never writes into the new file', async () => {
  await withFile(async (path, location) => {
    const store = await warmStore(path, location);
    const other = join(path, '..', 'other.db');
    const otherLocation = await fileWithOrders(other);
    const replacement = await readFile(other);
    try {
      // A commit in its WAL: SQLite leaves the WAL of a file moved away for its next open, which would apply
      // the old file's pages over the new one.
      await store.auth.createClient(client());
      await rename(other, path);
      await rejectsWithStoreError(store.ping(), 'STORE_DAMAGED', /larder\.db was replaced or removed/);
      await rejectsWithStoreError(store.auth.createClient(client()), 'STORE_DAMAGED');
      await rejectsWithStoreError(store.records.beginImport({ id: location }), 'STORE_DAMAGED');
      // Reads go on answering from the file the store opened (its data is sound): readiness takes it out.
      assert.equal(
        text(await store.records.get(PURCHASE_ORDERS, location, idFor(3))),
        purchaseOrder(3, T0 + 3).json,
      );
    } finally {
      await store.close();
    }
    // The file put in its place is as it was put there, and no WAL of the old file is left beside it.
    assert.deepEqual(await readFile(path), replacement);
    assert.equal((await stat(`${path}-wal`).catch(() => undefined))?.size ?? 0, 0);
    const reopened = await createSqliteStore({ path });
    try {
      assert.deepEqual(
        (await reopened.locations.list()).map(({ id }) => id),
        [otherLocation],
      );
    } finally {
      await reopened.close();
    }
  });
});

test('SQLite file removed under an open store: latched as replaced or removed', async () => {
  await withFile(async (path, location) => {
    const store = await warmStore(path, location);
    try {
      await rm(path);
      await rejectsWithStoreError(store.ping(), 'STORE_DAMAGED', /larder\.db was replaced or removed/);
    } finally {
      await store.close();
    }
  });
});

test('SQLite WAL file removed under an open store: latched; what the WAL held is written back by a clean close', async () => {
  await withFile(async (path, location) => {
    // Not warmed: nothing but the open has looked at the WAL when it goes.
    const store = await createSqliteStore({ path });
    const kept = client();
    try {
      // A commit that is only in the WAL when it goes.
      await store.auth.createClient(kept);
      await rm(`${path}-wal`);
      await rejectsWithStoreError(store.ping(), 'STORE_DAMAGED', /larder\.db-wal was removed/);
      await rejectsWithStoreError(store.records.beginImport({ id: location }), 'STORE_DAMAGED');
    } finally {
      await store.close();
    }
    const reopened = await createSqliteStore({ path });
    try {
      assert.equal((await reopened.auth.getClient(kept.clientId))?.name, kept.name);
    } finally {
      await reopened.close();
    }
  });
});
