import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { damageTable, fileWithOrders } from './damaged-file.js';
import {
  idFor,
  importInto,
  newLocationId,
  purchaseOrder,
  purchaseOrderSearch,
  rejectsWithStoreError,
  T0,
  text,
} from './records.js';

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
  const location = await fileWithOrders(path);
  // Opened first: opening reads the tables; the retail reader connection opens at the first read.
  const reader = await createSqliteStore({ path });
  await damageTable(path, 'purchase_orders');
  try {
    // The ping reads a table that is still sound: before any read finds the damage, it answers.
    await reader.ping();
    await rejectsWithStoreError(
      reader.records.get(PURCHASE_ORDERS, location, idFor(1)),
      'STORE_DAMAGED',
      /database disk image is malformed.*sqlite3 .*\.recover/,
    );
    // The turn's read transaction ends in a setImmediate: a COMMIT that throws there would end the process.
    await nextTurn();
    await nextTurn();
    await assert.rejects(async () => reader.records.get(PURCHASE_ORDERS, location, idFor(2)), /malformed/);
    // From the first read that found it, the store says it is damaged (/readyz 503), naming the file.
    const damage = await rejectsWithStoreError(reader.ping(), 'STORE_DAMAGED');
    assert.ok(damage.message.includes(path), damage.message);
    assert.deepEqual(await reader.locations.list().then((all) => all.map(({ id }) => id)), [location]);
  } finally {
    await reader.close();
    await rm(dir, { recursive: true, force: true });
  }
});
