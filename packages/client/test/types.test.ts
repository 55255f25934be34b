import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient } from '../src/index.js';

/**
 * The public signatures accept what the server accepts and refuse, at compile time, what it would answer 400 to:
 * `tsc` (which compiles this file) fails when an `@ts-expect-error` below no longer has an error to expect.
 */

const client = createClient({ baseUrl: 'http://larder.test', clientId: 'id', clientSecret: 'secret' });

/** Never run: these are for the compiler. */
const mistakes = () => {
  // @ts-expect-error a filter of the other record kind
  client.purchaseOrders.search({ adjustmentType: ['WASTED'] }, { location: 'l' });
  // @ts-expect-error an adjustment type that does not exist
  client.inventoryHistory.search({ adjustmentType: ['WASTE'] }, { location: 'l' });
  // @ts-expect-error a purchase order status that does not exist
  client.purchaseOrders.search({ purchaseOrderStatuses: ['OPEN'] }, { location: 'l' });
  // @ts-expect-error a date range without its start
  client.purchaseOrders.search({ updatedDateRange: { endDate: '2025-06-30' } }, { location: 'l' });
  // @ts-expect-error no location
  client.purchaseOrders.search({}, {});
  // @ts-expect-error a page size as text
  client.purchaseOrders.search({}, { location: 'l', pageSize: '100' });
  // @ts-expect-error a sync sets updatedDateRange itself
  client.purchaseOrders.sync({ location: 'l', filter: { updatedDateRange: { startDate: '2025-06-01' } } });
  // @ts-expect-error since is a watermark or a string, not a Date
  client.purchaseOrders.sync({ location: 'l', since: new Date() });
};

test('every filter the server takes type-checks, nulls included', () => {
  void mistakes;
  const search = client.purchaseOrders.search(
    {
      updatedDateRange: { startDate: '2025-06-01', endDate: null },
      includeArchived: true,
      purchaseOrderStatuses: ['DRAFT', 'ORDERED', 'PARTIALLY_RECEIVED', 'RECEIVED', 'VOIDED'],
    },
    { location: 'l', pageSize: 500 },
  );
  const inventory = client.inventoryHistory.sync({
    location: 'l',
    since: '2025-06-01T09:00:00+02:00',
    filter: { adjustmentType: ['WASTED', 'THEFT'] },
  });
  assert.equal(typeof search[Symbol.asyncIterator], 'function');
  assert.equal(inventory.watermark, undefined, 'nothing is sent until iterated');
});
