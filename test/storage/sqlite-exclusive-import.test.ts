import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { INVENTORY_HISTORY, PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../../src/storage/store.js';
import {
  idFor,
  importInto,
  inventoryEntry,
  inventorySearch,
  newLocationId,
  purchaseOrder,
  rejectsWithStoreError,
  T0,
  text,
} from './records.js';

const ORDERS = [purchaseOrder(1, T0, 'DRAFT'), purchaseOrder(2, T0 + 1000, 'RECEIVED', true)];
const ENTRIES = [inventoryEntry(1, T0, 'COUNT'), inventoryEntry(2, T0 + 1000, 'WASTED')];

/** What another process would see of the file: its journal mode and the indexes in its committed schema. */
const inspect = (path: string): { journalMode: string; indexes: string[] } => {
  const other = new Database(path, { readonly: true });
  try {
    return {
      journalMode: other.pragma('journal_mode', { simple: true }) as string,
      indexes: other
        .prepare<[], string>(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
        )
        .pluck()
        .all(),
    };
  } finally {
    other.close();
  }
};

describe('SQLite exclusive import sessions', () => {
  let dir: string;
  let path: string;
  let store: Store;
  let schemaIndexes: string[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-exclusive-'));
    path = join(dir, 'larder.db');
    store = await createSqliteStore({ path });
    schemaIndexes = inspect(path).indexes;
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('with the file to itself, writes through a rollback journal and returns to WAL at commit', async () => {
    const location = newLocationId();
    const session = await store.records.beginImport({ id: location }, { exclusive: true });
    await session.put(PURCHASE_ORDERS, ORDERS);
    await session.put(INVENTORY_HISTORY, ENTRIES);
    assert.equal(inspect(path).journalMode, 'delete');
    await session.commit();

    assert.deepEqual(inspect(path), { journalMode: 'wal', indexes: schemaIndexes });
    assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, idFor(2))), ORDERS[1]?.json);
    const page = await store.records.search(
      INVENTORY_HISTORY,
      inventorySearch({ locationId: location, adjustmentTypes: ['WASTED'], limit: 10 }),
    );
    assert.deepEqual(
      page.map((row) => row.id),
      [idFor(2)],
    );
  });

  test('a rolled-back exclusive session leaves no rows, no location, and the schema as it was', async () => {
    const location = newLocationId();
    const session = await store.records.beginImport({ id: location }, { exclusive: true });
    await session.put(PURCHASE_ORDERS, ORDERS);
    await session.put(INVENTORY_HISTORY, ENTRIES);
    await session.rollback();

    assert.deepEqual(inspect(path), { journalMode: 'wal', indexes: schemaIndexes });
    assert.equal(await store.locations.get(location), undefined);
    assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, idFor(1))), undefined);
  });

  test('while another connection has the file open, keeps the WAL so that reader sees only committed data', async () => {
    const kept = await importInto(store, { purchaseOrders: [purchaseOrder(9, T0)] });
    const reader = new Database(path, { readonly: true });
    try {
      const count = reader.prepare<[], number>('SELECT count(*) FROM purchase_orders').pluck();
      const session = await store.records.beginImport({ id: newLocationId() }, { exclusive: true });
      await session.put(PURCHASE_ORDERS, ORDERS);
      assert.equal(reader.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(count.get(), 1);
      await session.commit();
      assert.equal(count.get(), 1 + ORDERS.length);
    } finally {
      reader.close();
    }
    assert.equal(text(await store.records.get(PURCHASE_ORDERS, kept, idFor(9))), purchaseOrder(9, T0).json);
    assert.deepEqual(inspect(path), { journalMode: 'wal', indexes: schemaIndexes });
  });

  test('a store opened during an exclusive load waits, then fails with a message saying why', async () => {
    const session = await store.records.beginImport({ id: newLocationId() }, { exclusive: true });
    await session.put(PURCHASE_ORDERS, ORDERS);
    await rejectsWithStoreError(
      createSqliteStore({ path, busyTimeoutMs: 50 }),
      'STORE_LOCKED',
      /is locked by another process: most likely a `larder import` or `larder seed` is still writing to it/,
    );
    await session.commit();
    const later = await createSqliteStore({ path, busyTimeoutMs: 50 });
    await later.close();
  });
});

describe('SQLite failures as StoreErrors', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'larder-sqlite-errors-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a file with a newer schema is refused with STORE_SCHEMA', async () => {
    const path = join(dir, 'newer.db');
    const db = new Database(path);
    db.pragma('user_version = 999');
    db.close();
    await rejectsWithStoreError(createSqliteStore({ path }), 'STORE_SCHEMA', /newer than this Larder/);
  });

  test('in one process, an import that waits out the busy timeout behind another fails with STORE_LOCKED', async () => {
    const store = await createSqliteStore({ path: join(dir, 'queued.db'), busyTimeoutMs: 20 });
    try {
      const session = await store.records.beginImport({ id: newLocationId() });
      await rejectsWithStoreError(store.records.beginImport({ id: newLocationId() }), 'STORE_LOCKED', /busy/);
      await rejectsWithStoreError(store.settings.benchDataset.set('x'), 'STORE_LOCKED', /busy/);
      await session.commit();
      const later = await store.records.beginImport({ id: newLocationId() });
      await later.rollback();
      await store.settings.benchDataset.set('y');
    } finally {
      await store.close();
    }
  });

  test('a write that waits out the busy timeout behind an import fails with STORE_LOCKED', async () => {
    const path = join(dir, 'busy.db');
    const importing = await createSqliteStore({ path });
    const writer = await createSqliteStore({ path, busyTimeoutMs: 50 });
    try {
      const session = await importing.records.beginImport({ id: newLocationId() });
      await session.put(PURCHASE_ORDERS, ORDERS);
      await rejectsWithStoreError(writer.settings.benchDataset.set('x'), 'STORE_LOCKED');
      await session.commit();
      await writer.settings.benchDataset.set('y');
      assert.equal(await importing.settings.benchDataset.get(), 'y');
    } finally {
      await writer.close();
      await importing.close();
    }
  });
});
