import assert from 'node:assert/strict';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { idFor, importInto, newLocationId, purchaseOrder, purchaseOrderSearch, T0, text } from './records.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('SQLite retail reads of one event-loop turn share a snapshot; the next turn sees later commits', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-snapshot-'));
  const path = join(dir, 'larder.db');
  const reader = await createSqliteStore({ path });
  const writer = await createSqliteStore({ path });
  try {
    const location = newLocationId();
    await nextTurn();
    assert.equal(text(await reader.records.get(PURCHASE_ORDERS, location, idFor(1))), undefined);
    // Awaiting resolved promises stays within the turn, so the commit lands inside the reader's snapshot.
    await importInto(writer, { purchaseOrders: [purchaseOrder(1, T0)] }, location);
    assert.equal(text(await reader.records.get(PURCHASE_ORDERS, location, idFor(1))), undefined);
    assert.deepEqual(
      await reader.records.search(
        PURCHASE_ORDERS,
        purchaseOrderSearch({ locationId: location, statuses: [], includeArchived: true, limit: 5 }),
      ),
      [],
    );
    await nextTurn();
    assert.equal(
      text(await reader.records.get(PURCHASE_ORDERS, location, idFor(1))),
      purchaseOrder(1, T0).json,
    );
  } finally {
    await reader.close();
    await writer.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a read that finds the SQLite file corrupt fails that request; ending the turn neither throws nor wedges the reader', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'larder-snapshot-'));
  const path = join(dir, 'larder.db');
  const writer = await createSqliteStore({ path });
  const location = await importInto(writer, {
    purchaseOrders: Array.from({ length: 200 }, (_, n) => purchaseOrder(n, T0 + n)),
  });
  await writer.close();
  // Garbage over the purchase orders' table root page: what a disk error or a stray write leaves.
  const raw = new Database(path);
  const { rootpage, pageSize } = raw
    .prepare(
      "SELECT rootpage, (SELECT page_size FROM pragma_page_size) AS pageSize FROM sqlite_master WHERE name = 'purchase_orders'",
    )
    .get() as { rootpage: number; pageSize: number };
  raw.close();
  // Opened first: opening reads the tables; the retail reader connection opens at the first read.
  const reader = await createSqliteStore({ path });
  const file = await open(path, 'r+');
  await file.write(Buffer.alloc(pageSize, 0x5a), 0, pageSize, (rootpage - 1) * pageSize);
  await file.close();
  try {
    await assert.rejects(async () => reader.records.get(PURCHASE_ORDERS, location, idFor(1)), /malformed/);
    // The turn's read transaction ends in a setImmediate: a COMMIT that throws there would end the process.
    await nextTurn();
    await nextTurn();
    await assert.rejects(async () => reader.records.get(PURCHASE_ORDERS, location, idFor(2)), /malformed/);
  } finally {
    await reader.close();
    await rm(dir, { recursive: true, force: true });
  }
});
