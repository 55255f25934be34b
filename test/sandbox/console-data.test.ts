import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LocationCharts } from '../../src/sandbox/admin-schemas.js';
import { createApp, type LarderApp } from '../../src/server/app.js';
import { createTestClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { adminConfig, adminRequests } from '../helpers/admin-requests.js';
import { inventoryFixture, isoAt, purchaseOrderFixture, uuidFor } from '../helpers/fixtures.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

/** The admin reads behind the web console: locations overview, record reads without a client token, charts. */

const ADMIN = 'console-data-admin-token';
const DAY = 86_400_000;
/** Wednesday 2025-05-07 12:00 UTC: its week starts Monday 2025-05-05. */
const T = Date.UTC(2025, 4, 7, 12);
const LOCATION = 'console-1';

const supplier = (n: number, name: string) => ({
  ...purchaseOrderFixture(1, { modifiedAt: T }).supplier,
  id: uuidFor(n, 9),
  name,
});
const order = (
  n: number,
  createdAt: number,
  status: 'ORDERED' | 'RECEIVED' | 'DRAFT' | 'VOIDED',
  total: number,
  who = supplier(1, 'Harbor Produce Co.'),
) => {
  const base = purchaseOrderFixture(n, { modifiedAt: createdAt + 3_600_000, status });
  return { ...base, supplier: who, purchaseOrderTotals: { ...base.purchaseOrderTotals, totalCost: total } };
};
const ORDERS = [
  order(1, T - DAY, 'ORDERED', 65.5),
  order(6, T - 2 * DAY, 'RECEIVED', 10.25),
  order(2, T - 8 * DAY, 'RECEIVED', 100, supplier(2, 'Blue Dairy')),
  order(3, T - DAY, 'DRAFT', 999),
  order(4, T - DAY, 'VOIDED', 888),
  // Created long before the window, modified in it: its item's name counts, its spend does not.
  { ...order(5, T - DAY, 'RECEIVED', 777), createdDate: isoAt(T - 200 * DAY) },
];
const entry = (
  n: number,
  at: number,
  quantityOnHand: number,
  adjustmentType: 'COUNT' | 'WASTED' | 'RECEIVE',
) => ({
  ...inventoryFixture(n, { modifiedAt: at, adjustmentType }),
  quantityInfo: { quantityOnHand, quantityVariance: null },
});
/** Item uuidFor(1, 2) (n % 5 === 1) has three entries in the window; item uuidFor(2, 2) one. */
const ENTRIES = [
  entry(6, T - 3 * DAY, 30, 'RECEIVE'),
  entry(1, T - 5 * DAY, 10, 'COUNT'),
  entry(11, T - DAY, 24, 'WASTED'),
  entry(2, T - 2 * DAY, 7, 'COUNT'),
  entry(16, T - 120 * DAY, 50, 'COUNT'),
];

for (const backend of await backends()) {
  describeBackend(`console admin reads (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let larder: LarderApp;
    const { admin, json } = adminRequests(() => larder.app, ADMIN);

    before(async () => {
      db = await backend.create();
      larder = await createApp({
        store: db.store,
        clock: createTestClock(T),
        logger: silentLogger,
        config: adminConfig(ADMIN),
      });
      assert.equal((await admin('POST', `/locations/${LOCATION}/purchaseOrders`, ORDERS)).status, 200);
      assert.equal((await admin('POST', `/locations/${LOCATION}/inventoryHistory`, ENTRIES)).status, 200);
      await db.store.locations.upsert({ id: 'console-empty', name: 'Empty' });
    });
    after(() => db?.destroy());

    test('GET /locations lists each location with its counts and modifiedDate span per kind', async () => {
      const { locations } = await json<{ locations: Record<string, unknown>[] }>(admin('GET', '/locations'));
      const shop = locations.find((l) => l['id'] === LOCATION)!;
      assert.deepEqual(shop['records'], {
        purchaseOrders: {
          count: 6,
          firstModifiedDate: isoAt(T - 8 * DAY + 3_600_000),
          lastModifiedDate: isoAt(T - DAY + 3_600_000),
        },
        inventoryHistory: {
          count: 5,
          firstModifiedDate: isoAt(T - 120 * DAY),
          lastModifiedDate: isoAt(T - DAY),
        },
      });
      const empty = locations.find((l) => l['id'] === 'console-empty')!;
      assert.equal(empty['name'], 'Empty');
      assert.deepEqual(empty['records'], {
        purchaseOrders: { count: 0, firstModifiedDate: null, lastModifiedDate: null },
        inventoryHistory: { count: 0, firstModifiedDate: null, lastModifiedDate: null },
      });
    });

    test('search and get by id read any location without a client token, paged and filtered as the API', async () => {
      const first = await json<{ data: { id: string }[]; nextPageToken: string }>(
        admin('POST', `/locations/${LOCATION}/purchaseOrders/search?pageSize=4`, {}),
      );
      assert.equal(first.data.length, 4);
      const second = await json<{ data: { id: string }[]; nextPageToken: string }>(
        admin(
          'POST',
          `/locations/${LOCATION}/purchaseOrders/search?pageSize=4&pageToken=${first.nextPageToken}`,
          {},
        ),
      );
      assert.equal(second.data.length, 2);
      assert.equal(second.nextPageToken, '');
      const drafts = await json<{ data: { status: string }[] }>(
        admin('POST', `/locations/${LOCATION}/purchaseOrders/search`, { purchaseOrderStatuses: ['DRAFT'] }),
      );
      assert.deepEqual(
        drafts.data.map((o) => o.status),
        ['DRAFT'],
      );
      const wasted = await json<{ data: unknown[] }>(
        admin('POST', `/locations/${LOCATION}/inventoryHistory/search`, { adjustmentType: ['WASTED'] }),
      );
      assert.equal(wasted.data.length, 1);

      const one = await admin('GET', `/locations/${LOCATION}/purchaseOrders/${uuidFor(2, 1).toUpperCase()}`);
      assert.equal(one.status, 200);
      assert.equal((await json(one))['id'], uuidFor(2, 1));
      const entryById = await json(admin('GET', `/locations/${LOCATION}/inventoryHistory/${uuidFor(11, 3)}`));
      assert.equal(entryById['adjustmentType'], 'WASTED');
    });

    test('bad console reads answer the ErrorMessage naming the field; the admin token is required', async () => {
      const bad = await admin('POST', `/locations/${LOCATION}/purchaseOrders/search`, {
        purchaseOrderStatuses: ['LOST'],
      });
      assert.equal(bad.status, 400);
      assert.equal((await json(bad))['fieldName'], 'purchaseOrderStatuses[0]');
      const unknown = await admin('POST', '/locations/nowhere/purchaseOrders/search', {});
      assert.equal(unknown.status, 404);
      assert.equal((await json(unknown))['code'], 40403);
      const missing = await admin('GET', `/locations/${LOCATION}/purchaseOrders/${uuidFor(99, 1)}`);
      assert.equal((await json(missing))['code'], 40401);
      const notUuid = await admin('GET', `/locations/${LOCATION}/inventoryHistory/nope`);
      assert.equal((await json(notUuid))['fieldName'], 'inventoryHistoryEntryId');
      // A search path is the search's, not a record id's: any other method is a 405 allowing POST alone.
      for (const method of ['GET', 'DELETE']) {
        const wrong = await admin(method, `/locations/${LOCATION}/purchaseOrders/search`);
        assert.equal(wrong.status, 405, method);
        assert.equal(wrong.headers.get('allow'), 'POST', method);
      }
      assert.equal((await admin('GET', '/locations', undefined, 'wrong-token-wrong-token')).status, 401);
      for (const query of ['days=0', 'days=367', 'days=x', 'itemVersionId=nope', 'day=7', 'days=7&days=30']) {
        const response = await admin('GET', `/locations/${LOCATION}/charts?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal((await json(response))['fieldName'], query.split('=')[0]);
      }
      assert.equal((await admin('GET', '/locations/nowhere/charts')).status, 404);
    });

    test('charts: the busiest item by default, its stock over time, spend per supplier per week', async () => {
      const charts = await json<LocationCharts>(admin('GET', `/locations/${LOCATION}/charts?days=90`));
      assert.equal(charts.to, isoAt(T));
      assert.equal(charts.from, isoAt(T - 90 * DAY));
      assert.equal(charts.truncated, false);
      assert.deepEqual(charts.items, [
        { itemVersionId: uuidFor(1, 2), name: 'Roma tomatoes', entries: 3 },
        { itemVersionId: uuidFor(2, 2), name: 'Roma tomatoes', entries: 1 },
      ]);
      assert.deepEqual(
        charts.stock?.points.map((p) => [p.quantityOnHand, p.adjustmentType]),
        [
          [10, 'COUNT'],
          [30, 'RECEIVE'],
          [24, 'WASTED'],
        ],
        'oldest first; the entry from 120 days ago is outside the window',
      );
      const weeks = charts.spend.weeks;
      assert.equal(weeks.at(-1), '2025-05-05');
      assert.equal(weeks.at(-2), '2025-04-28');
      const [blue, harbor] = charts.spend.suppliers;
      assert.equal(harbor?.name, 'Harbor Produce Co.');
      assert.equal(
        harbor?.total,
        75.75,
        'drafts, voided orders and orders created before the window are left out',
      );
      assert.equal(harbor?.weekly.at(-1), 75.75);
      assert.equal(blue?.name, 'Blue Dairy');
      assert.equal(blue?.weekly.at(-2), 100);
      assert.equal(harbor?.weekly.length, weeks.length);

      const other = await json<LocationCharts>(
        admin('GET', `/locations/${LOCATION}/charts?itemVersionId=${uuidFor(2, 2)}&days=3`),
      );
      assert.deepEqual(
        other.stock?.points.map((p) => p.quantityOnHand),
        [7],
      );
      assert.deepEqual(
        other.items.map((i) => i.entries),
        [2, 1],
      );
      const emptyCharts = await json<LocationCharts>(admin('GET', '/locations/console-empty/charts'));
      assert.equal(emptyCharts.stock, null);
      assert.deepEqual(emptyCharts.spend.suppliers, []);
    });
  });
}
