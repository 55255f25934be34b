import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PurchaseOrder } from '../../src/records/schemas.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';
import { createRetailHarness, loadRecords, type PageEnvelope } from '../helpers/retail-app.js';
import { type BackendInstance, backends } from '../storage/backends.js';

const DAY = 86_400_000;
const T = Date.parse('2024-06-01T00:00:00Z');

// 250 live orders one minute apart, plus archived and same-timestamp ties.
const live = Array.from({ length: 250 }, (_, i) =>
  purchaseOrderFixture(i + 10, { modifiedAt: T + i * 60_000, status: i % 5 === 0 ? 'RECEIVED' : 'ORDERED' }),
);
const archived = [purchaseOrderFixture(1, { modifiedAt: T + 30_000, archived: true, status: 'VOIDED' })];
const ties = [3, 2].map((n) => purchaseOrderFixture(n, { modifiedAt: T - DAY }));
// Inventory on the edges of whole UTC days.
const inventory = [
  inventoryFixture(1, { modifiedAt: Date.parse('2024-05-31T23:59:59.999Z'), adjustmentType: 'WASTED' }),
  inventoryFixture(2, { modifiedAt: Date.parse('2024-06-01T00:00:00.000Z'), adjustmentType: 'COUNT' }),
  inventoryFixture(3, { modifiedAt: Date.parse('2024-06-02T23:59:59.999Z'), adjustmentType: 'THEFT' }),
  inventoryFixture(4, { modifiedAt: Date.parse('2024-06-03T00:00:00.000Z'), adjustmentType: 'COUNT' }),
];

const ids = (page: PageEnvelope) =>
  page.data.map((record) => record['id'] ?? record['inventoryHistoryLogId']);

for (const backend of await backends()) {
  describe(`search (${backend.name})`, { skip: backend.skip ?? false }, () => {
    let instance: BackendInstance;
    let h: Awaited<ReturnType<typeof createRetailHarness>>;
    const page = async (kind: 'purchaseOrders' | 'inventoryHistory', body: unknown = {}, query = '') => {
      const response = await h.search(kind, 'loc-a', body, query);
      assert.equal(response.status, 200, await response.clone().text());
      return (await response.json()) as PageEnvelope;
    };
    const walk = async (kind: 'purchaseOrders' | 'inventoryHistory', body: unknown, pageSize: number) => {
      const pages: PageEnvelope[] = [];
      let token = '';
      do {
        const current = await page(
          kind,
          body,
          `?pageSize=${pageSize}${token === '' ? '' : `&pageToken=${token}`}`,
        );
        assert.equal(current.currentPageToken, token);
        pages.push(current);
        token = current.nextPageToken;
      } while (token !== '');
      return pages;
    };

    before(async () => {
      instance = await backend.create();
      await loadRecords(instance.store, 'loc-a', {
        purchaseOrders: [...live, ...archived, ...ties],
        inventory,
      });
      await loadRecords(instance.store, 'loc-b', {
        purchaseOrders: [purchaseOrderFixture(999, { modifiedAt: T })],
      });
      h = await createRetailHarness(instance.store, ['loc-a', 'loc-b']);
    });
    after(() => instance.destroy());

    test('the first page has 100 records, an empty currentPageToken and a next token', async () => {
      const first = await page('purchaseOrders');
      assert.equal(first.data.length, 100);
      assert.equal(first.currentPageToken, '');
      assert.notEqual(first.nextPageToken, '');
    });

    test('records come in modifiedDate order, ties broken by id', async () => {
      const first = await page('purchaseOrders');
      assert.deepEqual(ids(first).slice(0, 2), [ties[1]!.id, ties[0]!.id]);
      const dates = first.data.map((record) => Date.parse(String(record['modifiedDate'])));
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => a - b),
      );
    });

    test('following nextPageToken visits every live order once, and the last page has an empty next token', async () => {
      const pages = await walk('purchaseOrders', {}, 100);
      assert.deepEqual(
        pages.map((p) => p.data.length),
        [100, 100, 52],
      );
      assert.equal(pages.at(-1)!.nextPageToken, '');
      const seen = pages.flatMap(ids);
      assert.equal(new Set(seen).size, live.length + ties.length);
    });

    test('when the records fill the last page exactly, no empty page follows', async () => {
      const pages = await walk('purchaseOrders', {}, 126);
      assert.deepEqual(
        pages.map((p) => p.data.length),
        [126, 126],
      );
    });

    test('archived orders are left out unless includeArchived is true', async () => {
      const without = (await walk('purchaseOrders', {}, 500)).flatMap(ids);
      assert.equal(without.includes(archived[0]!.id), false);
      const withArchived = (await walk('purchaseOrders', { includeArchived: true }, 500)).flatMap(ids);
      assert.equal(withArchived.includes(archived[0]!.id), true);
    });

    test('purchaseOrderStatuses filters by status', async () => {
      const received = (await walk('purchaseOrders', { purchaseOrderStatuses: ['RECEIVED'] }, 500)).flatMap(
        (p) => p.data,
      ) as unknown as PurchaseOrder[];
      assert.equal(received.length, 50);
      assert.ok(received.every((order) => order.status === 'RECEIVED'));
    });

    test('an empty status list means no filter', async () => {
      const all = await walk('purchaseOrders', { purchaseOrderStatuses: [] }, 500);
      assert.equal(all[0]!.data.length, 252);
    });

    test('updatedDateRange covers whole UTC days, both ends inclusive', async () => {
      const result = await page('inventoryHistory', {
        updatedDateRange: { startDate: '2024-06-01', endDate: '2024-06-02' },
      });
      assert.deepEqual(ids(result), [
        inventory[1]!.inventoryHistoryLogId,
        inventory[2]!.inventoryHistoryLogId,
      ]);
    });

    test('updatedDateRange without endDate is open-ended', async () => {
      const result = await page('inventoryHistory', { updatedDateRange: { startDate: '2024-06-02' } });
      assert.deepEqual(ids(result), [
        inventory[2]!.inventoryHistoryLogId,
        inventory[3]!.inventoryHistoryLogId,
      ]);
    });

    test('adjustmentType filters inventory history', async () => {
      const result = await page('inventoryHistory', { adjustmentType: ['COUNT', 'THEFT'] });
      assert.deepEqual(ids(result), [
        inventory[1]!.inventoryHistoryLogId,
        inventory[2]!.inventoryHistoryLogId,
        inventory[3]!.inventoryHistoryLogId,
      ]);
    });

    test('null optional fields in a search body are read as absent', async () => {
      const result = await page('purchaseOrders', {
        includeArchived: null,
        purchaseOrderStatuses: null,
        updatedDateRange: null,
      });
      assert.equal(result.data.length, 100);
    });

    test('a location sees only its own records', async () => {
      const response = await h.search('purchaseOrders', 'loc-b', {});
      const body = (await response.json()) as PageEnvelope;
      assert.deepEqual(ids(body), [purchaseOrderFixture(999, { modifiedAt: T }).id]);
    });

    test('a location with no records answers an empty first page with an empty next token', async () => {
      await instance.store.locations.upsert({ id: 'loc-empty' });
      const harness = await createRetailHarness(instance.store, ['loc-empty', 'loc-nowhere']);
      const response = await harness.search('inventoryHistory', 'loc-empty', {});
      assert.deepEqual(await response.json(), { currentPageToken: '', nextPageToken: '', data: [] });
      const unknown = await harness.search('inventoryHistory', 'loc-nowhere', {});
      assert.equal(unknown.status, 404);
      assert.equal(((await unknown.json()) as { code: number }).code, 40403);
    });

    test('equivalent filters written differently share page tokens', async () => {
      const first = await page('purchaseOrders', { purchaseOrderStatuses: ['ORDERED', 'RECEIVED'] });
      const second = await page(
        'purchaseOrders',
        { purchaseOrderStatuses: ['RECEIVED', 'ORDERED', 'ORDERED'], includeArchived: false },
        `?pageToken=${first.nextPageToken}`,
      );
      assert.equal(second.data.length, 100);
    });

    test('a record updated during a walk is not skipped and may reappear; unchanged ones are never skipped', async () => {
      const extra = Array.from({ length: 30 }, (_, i) =>
        purchaseOrderFixture(5000 + i, { modifiedAt: T + 10 * DAY + i }),
      );
      await loadRecords(instance.store, 'loc-walk', { purchaseOrders: extra });
      const harness = await createRetailHarness(instance.store, ['loc-walk']);
      const fetchPage = async (token: string) =>
        (await (
          await harness.search(
            'purchaseOrders',
            'loc-walk',
            {},
            `?pageSize=10${token ? `&pageToken=${token}` : ''}`,
          )
        ).json()) as PageEnvelope;
      const first = await fetchPage('');
      // Update one record already seen and one not yet seen; both move to the end.
      const moved = [extra[2]!, extra[20]!].map((o) => ({
        ...o,
        modifiedDate: new Date(T + 20 * DAY).toISOString(),
      }));
      await loadRecords(instance.store, 'loc-walk', { purchaseOrders: moved });
      const seen = [...ids(first)];
      let token = first.nextPageToken;
      while (token !== '') {
        const next = await fetchPage(token);
        seen.push(...ids(next));
        token = next.nextPageToken;
      }
      for (const order of extra) assert.ok(seen.includes(order.id), `${order.id} was skipped`);
      assert.equal(seen.filter((id) => id === extra[2]!.id).length, 2);
    });
  });
}
