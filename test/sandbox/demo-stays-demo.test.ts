import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { importFiles } from '../../src/import/import-files.js';
import { prepareDemo } from '../../src/sandbox/demo.js';
import { createTestClock } from '../../src/shared/clock.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

/**
 * A database first started with --no-demo, or that ever held imported data, never gets the demo data or the demo
 * client later, whatever flags follow. (PostgreSQL never gets the demo at all; it runs the same checks.)
 */

const clock = createTestClock(Date.UTC(2025, 0, 10));
const quiet = () => {};

const assertNoDemo = async (instance: BackendInstance) => {
  assert.deepEqual(await instance.store.locations.list(), []);
  assert.equal(await instance.store.settings.demoClient.get(), undefined);
  assert.equal(await instance.store.settings.liveDemo.get(), undefined);
};

for (const backend of await backends()) {
  describeBackend(`demo stays demo (${backend.name})`, backend, () => {
    let instances: BackendInstance[] = [];
    const fresh = async () => {
      const instance = await backend.create();
      instances.push(instance);
      return instance;
    };
    before(() => {
      instances = [];
    });
    after(async () => {
      for (const instance of instances) await instance.destroy();
    });

    test('first started with --no-demo: a later start without it still gets no demo', async () => {
      const instance = await fresh();
      await prepareDemo(instance.store, clock, quiet, false);
      await prepareDemo(instance.store, clock, quiet, true);
      await assertNoDemo(instance);
      assert.deepEqual(await instance.store.auth.listClients(), []);
    });

    test('a database that held imported data gets no demo, even once that data is deleted', async () => {
      const instance = await fresh();
      const fixture = JSON.stringify([purchaseOrderFixture(1, { modifiedAt: clock.now() })]);
      const result = await importFiles(instance.store, {
        locationId: 'mine',
        purchaseOrders: { path: 'orders.json', input: Readable.from([fixture]) },
      });
      assert.ok(result.committed);
      assert.ok(await instance.store.locations.delete('mine'));
      await prepareDemo(instance.store, clock, quiet, true);
      await assertNoDemo(instance);
    });
  });
}
