import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { checkLocation, checkStore } from '../../src/check/check-location.js';
import { INVENTORY_HISTORY } from '../../src/records/kinds.js';

import type { InventoryHistoryLogEntry } from '../../src/records/schemas.js';
import { seedStore } from '../../src/seed/seed-store.js';
import { openStore } from '../../src/storage/open-store.js';
import { interceptInventoryPuts } from '../helpers/intercept-import.js';
import { TEST_END_DATE } from '../seed/collect.js';

const dir = mkdtempSync(join(tmpdir(), 'larder-seed-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const SMALL = { locations: 2, days: 21, ordersPerWeek: 20, items: 40, suppliers: 6, endDate: TEST_END_DATE };

test('a seeded store passes the check, location by location', async () => {
  const store = await openStore({ db: join(dir, 'seeded.db') });
  try {
    const seeded: string[] = [];
    // Exclusive, as `larder seed` runs it: on SQLite the direct (no-WAL) path with indexes built at commit.
    const result = await seedStore(store, {
      ...SMALL,
      exclusive: true,
      onLocation: (location) => seeded.push(location.id),
    });
    assert.equal(result.locations.length, 2);
    assert.deepEqual(
      seeded,
      result.locations.map((location) => location.id),
    );
    assert.equal(result.options.endDate, TEST_END_DATE);
    const listed = await store.locations.list();
    assert.deepEqual(listed.map((location) => location.id).sort(), [...seeded].sort());
    for (const location of result.locations) {
      assert.ok(location.purchaseOrders > 30 && location.inventoryEntries > 100, JSON.stringify(location));
      const stored = listed.find((candidate) => candidate.id === location.id)!;
      assert.equal(stored.name, location.name);
      assert.equal(stored.purchaseOrders, location.purchaseOrders);
    }
    const reports = await checkStore(store);
    assert.equal(reports.length, 2);
    for (const report of reports) {
      assert.deepEqual(report.findings, []);
      const seededLocation = result.locations.find((location) => location.id === report.locationId)!;
      assert.equal(report.purchaseOrders, seededLocation.purchaseOrders);
      assert.equal(report.inventoryEntries, seededLocation.inventoryEntries);
    }

    // Break the stored data: a negative on-hand entry and a row that is not JSON.
    const [first] = result.locations;
    const [json] = (await store.records.scan(INVENTORY_HISTORY, first!.id)[Symbol.asyncIterator]().next())
      .value as string[];
    const entry = JSON.parse(json!) as InventoryHistoryLogEntry;
    entry.quantityInfo.quantityOnHand = -1;
    const session = await store.records.beginImport({ id: first!.id });
    await session.put(INVENTORY_HISTORY, [
      INVENTORY_HISTORY.toRow(entry),
      {
        ...INVENTORY_HISTORY.toRow(entry),
        id: '11111111-1111-4111-8111-111111111111',
        json: '{"inventoryHistoryLogId":"1111',
      },
    ]);
    await session.commit();
    const report = await checkLocation(store, first!.id);
    assert.ok(
      report.findings.some(
        (f) => f.kind === 'negative-on-hand' && f.recordId === entry.inventoryHistoryLogId,
      ),
    );
    assert.ok(report.findings.some((f) => f.kind === 'unreadable' && f.recordType === 'inventoryEntry'));
  } finally {
    await store.close();
  }
});

test('a seed that fails part-way leaves nothing of the failed location behind', async () => {
  const store = await openStore({ db: join(dir, 'failing.db') });
  try {
    let batches = 0;
    // The store as seedStore sees it, failing on the third inventory batch.
    const failing = interceptInventoryPuts(store, () => {
      if (++batches === 3) throw new Error('disk full');
    });
    await assert.rejects(
      seedStore(failing, { ...SMALL, locations: 1, batchSize: 100, exclusive: true }),
      /disk full/,
    );
    assert.deepEqual(await store.locations.list(), []);
  } finally {
    await store.close();
  }
});
