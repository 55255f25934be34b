import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { createRetailHarness, loadRecords } from '../helpers/retail-app.js';
import { type BackendInstance, backends } from '../storage/backends.js';

const T = Date.parse('2024-06-01T12:00:00Z');
const order = purchaseOrderFixture(1, { modifiedAt: T });
const entry = inventoryFixture(1, { modifiedAt: T });
const elsewhere = purchaseOrderFixture(2, { modifiedAt: T });

for (const backend of await backends()) {
  describe(`get by id (${backend.name})`, { skip: backend.skip ?? false }, () => {
    let instance: BackendInstance;
    let h: Awaited<ReturnType<typeof createRetailHarness>>;

    before(async () => {
      instance = await backend.create();
      await loadRecords(instance.store, 'loc-a', { purchaseOrders: [order], inventory: [entry] });
      await loadRecords(instance.store, 'loc-b', { purchaseOrders: [elsewhere] });
      h = await createRetailHarness(instance.store, ['loc-a', 'loc-b']);
    });
    after(() => instance.destroy());

    test('a purchase order is served byte for byte as imported (absent stays absent, null stays null)', async () => {
      const response = await h.call('GET', `/v1/purchaseOrders/${order.id}`, { location: 'loc-a' });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const text = await response.text();
      assert.equal(text, JSON.stringify(order));
      const served = JSON.parse(text) as Record<string, unknown>;
      assert.equal(served['externalPurchaseOrderNumber'], null);
      assert.equal('expectedDate' in served, false);
    });

    test('an inventory history entry is served as imported', async () => {
      const response = await h.call('GET', `/v1/inventoryHistory/${entry.inventoryHistoryLogId}`, {
        location: 'loc-a',
      });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), JSON.stringify(entry));
    });

    test('ids match regardless of letter case', async () => {
      const response = await h.call('GET', `/v1/purchaseOrders/${order.id.toUpperCase()}`, {
        location: 'loc-a',
      });
      assert.equal(response.status, 200);
    });

    test('a record of another location answers 404', async () => {
      const response = await h.call('GET', `/v1/purchaseOrders/${elsewhere.id}`, { location: 'loc-a' });
      assert.equal(response.status, 404);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['status'], '404');
      assert.equal(body['code'], 40401);
    });

    test('an unknown id answers 404', async () => {
      const response = await h.call('GET', '/v1/inventoryHistory/00000000-0000-4000-8000-00000000dead', {
        location: 'loc-a',
      });
      assert.equal(response.status, 404);
    });

    test('an id that is not a UUID answers 400 naming the parameter', async () => {
      const response = await h.call('GET', '/v1/purchaseOrders/not-a-uuid', { location: 'loc-a' });
      assert.equal(response.status, 400);
      const body = (await response.json()) as Record<string, unknown>;
      assert.equal(body['code'], 40004);
      assert.equal(body['fieldName'], 'purchaseOrderId');
    });

    test('bad percent-encoding in the path is a 400, not a crash', async () => {
      const response = await h.call('GET', '/v1/purchaseOrders/%E0%A4%A', { location: 'loc-a' });
      assert.equal(response.status, 400);
    });
  });
}
