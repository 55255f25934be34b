import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { exportLocation } from '../../src/export/export-location.js';
import { importFiles } from '../../src/import/import-files.js';
import { seedStore } from '../../src/seed/seed-store.js';
import { isLarderError } from '../../src/shared/errors.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const T = Date.UTC(2025, 1, 3, 12);

for (const backend of await backends()) {
  describeBackend(`larder export (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let dir: string;
    let seeded: string;
    before(async () => {
      db = await backend.create();
      dir = await mkdtemp(join(tmpdir(), 'larder-export-'));
      const result = await seedStore(db.store, { seed: 3, days: 21, endDate: '2025-03-01', locations: 1 });
      seeded = result.locations[0]!.id;
    });
    after(async () => {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    });

    const exportTo = async (locationId: string, name: string) => {
      const paths = { po: join(dir, `${name}-po.ndjson`), ih: join(dir, `${name}-ih.ndjson`) };
      const counts = await exportLocation(db.store, {
        locationId,
        purchaseOrders: { path: paths.po },
        inventoryHistory: { path: paths.ih },
      });
      return { ...paths, counts };
    };

    test('export, import into another location, export again: the same bytes', async () => {
      const first = await exportTo(seeded, 'first');
      assert.ok(first.counts.purchaseOrders > 20 && first.counts.inventoryEntries > 100);
      const imported = await importFiles(db.store, {
        locationId: 'copy',
        purchaseOrders: { path: first.po },
        inventoryHistory: { path: first.ih },
      });
      assert.ok(imported.committed, JSON.stringify(imported.problems));
      const second = await exportTo('copy', 'second');
      assert.deepEqual(second.counts, first.counts);
      assert.equal(await readFile(second.po, 'utf8'), await readFile(first.po, 'utf8'));
      assert.equal(await readFile(second.ih, 'utf8'), await readFile(first.ih, 'utf8'));
    });

    test('each line is the record as imported and served, in modifiedDate then id order', async () => {
      // Imported out of order, with nulls, absent fields and non-ASCII text, which must all survive.
      const orders = [3, 1, 2].map((n) => ({
        ...purchaseOrderFixture(n, { modifiedAt: T + (n % 2) * 1000 }),
        supplierNotes: `Livraison à 7h — n°${n} 🍅`,
      }));
      const entries = [inventoryFixture(1, { modifiedAt: T })];
      await writeFile(join(dir, 'in.ndjson'), orders.map((o) => JSON.stringify(o)).join('\n'));
      await writeFile(join(dir, 'in-ih.json'), JSON.stringify(entries, null, 2));
      const imported = await importFiles(db.store, {
        locationId: 'fixtures',
        purchaseOrders: { path: join(dir, 'in.ndjson') },
        inventoryHistory: { path: join(dir, 'in-ih.json') },
      });
      assert.ok(imported.committed);
      const out = await exportTo('fixtures', 'fixtures');
      const expected = [orders[2]!, orders[1]!, orders[0]!].map((o) => JSON.stringify(o)).join('\n');
      assert.equal(await readFile(out.po, 'utf8'), `${expected}\n`);
      assert.equal(await readFile(out.ih, 'utf8'), `${JSON.stringify(entries[0])}\n`);
    });

    test('an unknown location is an error and leaves no file behind', async () => {
      const before = await readdir(dir);
      const error = await exportLocation(db.store, {
        locationId: 'nowhere',
        purchaseOrders: { path: join(dir, 'nowhere.ndjson') },
      }).catch((e: unknown) => e);
      assert.ok(isLarderError(error));
      assert.match(error.message, /nowhere is unknown/);
      assert.deepEqual(await readdir(dir), before);
    });
  });
}
