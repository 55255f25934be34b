import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { RECORD_KINDS, type RecordKind, type RecordKindName } from '../../src/records/kinds.js';
import { createLocationGenerator } from '../../src/seed/generate-location.js';
import { locationIdentity } from '../../src/seed/location-profile.js';
import { resolveGenerateOptions } from '../../src/seed/options.js';
import { type RowBatch, workerRowBatches } from '../../src/seed/row-batches.js';
import { importLocation, seedStore } from '../../src/seed/seed-store.js';
import { openStore } from '../../src/storage/open-store.js';
import { interceptInventoryPuts } from '../helpers/intercept-import.js';
import { TEST_END_DATE } from './collect.js';

const dir = mkdtempSync(join(tmpdir(), 'larder-seed-worker-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// Small batches: many messages, so the worker runs into the in-flight limit and waits for the writes.
const SMALL = { days: 21, ordersPerWeek: 30, items: 40, suppliers: 6, endDate: TEST_END_DATE, batchSize: 25 };

/** The single-threaded reference: the generator's batches turned into rows on this thread. */
const inlineBatches = (locationIndex: number): RowBatch[] =>
  [...createLocationGenerator({ ...SMALL, locationIndex }).batches()].map(
    (batch) =>
      Object.fromEntries(
        RECORD_KINDS.map((kind: RecordKind) => [
          kind.name,
          ((batch as Partial<Record<RecordKindName, unknown[]>>)[kind.name] ?? []).map(kind.toRow),
        ]),
      ) as RowBatch,
  );

test('the worker yields exactly the batches and rows of the single-threaded generator', async () => {
  const batches: RowBatch[] = [];
  for await (const batch of workerRowBatches(resolveGenerateOptions({ ...SMALL, locationIndex: 1 }))) {
    batches.push(batch);
  }
  const expected = inlineBatches(1);
  assert.ok(expected.length > 10);
  assert.deepEqual(batches, expected);
});

test('a threaded seed stores exactly the rows of the single-threaded generator', async () => {
  const path = join(dir, 'threaded.db');
  const store = await openStore({ db: path });
  try {
    await seedStore(store, { ...SMALL, locations: 2 });
  } finally {
    await store.close();
  }
  const db = new Database(path, { readonly: true });
  try {
    for (const locationIndex of [0, 1]) {
      const { id } = locationIdentity(42, locationIndex);
      const expected = inlineBatches(locationIndex);
      const byId = <T extends { id: string }>(rows: T[]) => rows.sort((a, b) => (a.id < b.id ? -1 : 1));
      const orders = byId(expected.flatMap((batch) => batch.purchaseOrders)).map((row) => ({
        id: row.id,
        modified_at: row.modifiedAt,
        status: row.values[0],
        archived: row.values[1] ? 1 : 0,
        body: row.json,
      }));
      const entries = byId(expected.flatMap((batch) => batch.inventoryHistory)).map((row) => ({
        id: row.id,
        modified_at: row.modifiedAt,
        adjustment_type: row.values[0],
        body: row.json,
      }));
      assert.deepEqual(
        db
          .prepare(
            'SELECT id, modified_at, status, archived, body FROM purchase_orders WHERE location_id = ? ORDER BY id',
          )
          .all(id),
        orders,
      );
      assert.deepEqual(
        db
          .prepare(
            'SELECT id, modified_at, adjustment_type, body FROM inventory_entries WHERE location_id = ? ORDER BY id',
          )
          .all(id),
        entries,
      );
    }
  } finally {
    db.close();
  }
});

test('a worker that fails part-way rolls its location back; locations committed before stay', async () => {
  const store = await openStore({ db: join(dir, 'failing.db') });
  try {
    const [kept] = (await seedStore(store, { ...SMALL, locations: 1 })).locations;
    let written = 0;
    const counting = interceptInventoryPuts(store, (rows) => {
      written += rows.length;
    });
    const options = resolveGenerateOptions({ ...SMALL, locationIndex: 1 });
    const failing = new URL('./failing-seed-worker.mjs', import.meta.url);
    await assert.rejects(
      importLocation(counting, locationIdentity(42, 1), workerRowBatches(options, failing)),
      /generator broke/,
    );
    assert.ok(written > 0, 'rows of the first batches were written before the failure');
    const listed = await store.locations.list();
    assert.deepEqual(
      listed.map((location) => location.id),
      [kept!.id],
    );
  } finally {
    await store.close();
  }
});
