import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
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
