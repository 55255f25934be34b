import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { ExportTargetError, exportLocation } from '../../src/export/export-location.js';
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

    test('a FIFO or a device is written directly, never replaced, and no temporary file is left', async () => {
      const expected = await exportTo(seeded, 'regular');
      const out = await mkdtemp(join(dir, 'special-'));
      const fifo = join(out, 'po.fifo');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      // A character device as /dev/null is: root may make one here (mknod), so /dev itself is never at stake.
      const device = join(out, 'null');
      const hasDevice = spawnSync('mknod', [device, 'c', '1', '3']).status === 0;
      const entries = hasDevice ? device : join(out, 'ih.ndjson');
      // The reader opens without waiting for a writer, so the export's open finds it there.
      const reader = new Socket({
        fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK),
        writable: false,
      });
      try {
        const received = text(reader);
        // Left unread when the FIFO was replaced: its end never comes, and the reader is destroyed below.
        received.catch(() => {});
        const counts = await exportLocation(db.store, {
          locationId: seeded,
          purchaseOrders: { path: fifo },
          inventoryHistory: { path: entries },
        });
        assert.deepEqual(counts, expected.counts);
        assert.ok((await lstat(fifo)).isFIFO(), 'the FIFO was replaced');
        if (hasDevice) assert.ok((await lstat(device)).isCharacterDevice(), 'the device was replaced');
        else assert.equal(await readFile(entries, 'utf8'), await readFile(expected.ih, 'utf8'));
        assert.deepEqual(
          (await readdir(out)).sort(),
          hasDevice ? ['null', 'po.fifo'] : ['ih.ndjson', 'po.fifo'],
        );
        assert.equal(await received, await readFile(expected.po, 'utf8'));
      } finally {
        reader.destroy();
      }
    });

    test('a FIFO whose reader goes early fails the export (EPIPE), naming the file it left unwritten', async () => {
      const out = await mkdtemp(join(dir, 'cut-'));
      const fifo = join(out, 'ih.fifo');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      const reader = new Socket({
        fd: openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK),
        writable: false,
      });
      reader.once('data', () => reader.destroy());
      const orders = join(out, 'po.ndjson');
      const error = await exportLocation(db.store, {
        locationId: seeded,
        purchaseOrders: { path: orders },
        inventoryHistory: { path: fifo },
      }).catch((e: unknown) => e);
      assert.ok(error instanceof ExportTargetError, String(error));
      assert.equal(error.errno, 'EPIPE');
      assert.equal(error.kind, 'inventoryHistory');
      assert.deepEqual(error.unwritten, [{ kind: 'purchaseOrders', path: orders }]);
      assert.deepEqual(await readdir(out), ['ih.fifo']);
    });

    test('a symlink is followed: its target is replaced whole (written beside it, renamed), and the link stays', async () => {
      const expected = await exportTo(seeded, 'unlinked');
      const out = await mkdtemp(join(dir, 'linked-'));
      await mkdir(join(out, 'real'));
      await writeFile(join(out, 'real', 'po.ndjson'), 'older\n');
      await symlink(join('real', 'po.ndjson'), join(out, 'po.ndjson'));
      // A link to a file not there yet makes that file.
      await symlink(join(out, 'real', 'ih.ndjson'), join(out, 'ih.ndjson'));
      await exportLocation(db.store, {
        locationId: seeded,
        purchaseOrders: { path: join(out, 'po.ndjson') },
        inventoryHistory: { path: join(out, 'ih.ndjson') },
      });
      assert.equal(await readlink(join(out, 'po.ndjson')), join('real', 'po.ndjson'));
      assert.equal(await readlink(join(out, 'ih.ndjson')), join(out, 'real', 'ih.ndjson'));
      assert.equal(
        await readFile(join(out, 'real', 'po.ndjson'), 'utf8'),
        await readFile(expected.po, 'utf8'),
      );
      assert.equal(
        await readFile(join(out, 'real', 'ih.ndjson'), 'utf8'),
        await readFile(expected.ih, 'utf8'),
      );
      assert.deepEqual((await readdir(out)).sort(), ['ih.ndjson', 'po.ndjson', 'real']);
      assert.deepEqual((await readdir(join(out, 'real'))).sort(), ['ih.ndjson', 'po.ndjson']);
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
