import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ADJUSTMENT_TYPES,
  InventoryHistoryLogEntrySchema,
  PURCHASE_ORDER_STATUSES,
  PurchaseOrderSchema,
} from '../../src/records/schemas.js';
import { createLocationGenerator } from '../../src/seed/generate-location.js';
import { locationIdentity } from '../../src/seed/location-profile.js';
import { defaultEndDate, resolveGenerateOptions } from '../../src/seed/options.js';
import { createValidator } from '../../src/shared/validator.js';
import { collectLocation, TEST_END_DATE } from './collect.js';

const orderValidator = createValidator(PurchaseOrderSchema);
const entryValidator = createValidator(InventoryHistoryLogEntrySchema);

const SIZES = [
  { seed: 42, days: 30 },
  { seed: 7, days: 45, ordersPerWeek: 60, items: 40, suppliers: 4 },
  { seed: 2024, days: 20, ordersPerWeek: 10, items: 3, suppliers: 1 },
  { seed: 99, days: 30, ordersPerWeek: 25, items: 300, suppliers: 20, locationIndex: 2 },
];

test('every generated record validates against the interface schemas', () => {
  for (const size of SIZES) {
    const location = collectLocation(size);
    assert.ok(location.orders.length > 0 && location.entries.length > 0, JSON.stringify(size));
    for (const order of location.orders) assert.deepEqual(orderValidator.problems(order), [], order.id);
    for (const entry of location.entries) {
      assert.deepEqual(entryValidator.problems(entry), [], entry.inventoryHistoryLogId);
    }
  }
});

test('same options give identical records, ids included; another seed gives other records', () => {
  const options = { seed: 11, days: 30, batchSize: 50 };
  const first = JSON.stringify(collectLocation(options));
  assert.equal(JSON.stringify(collectLocation(options)), first);
  // The batch size only cuts the stream differently.
  const rebatched = collectLocation({ ...options, batchSize: 7 });
  assert.equal(
    JSON.stringify({ ...rebatched, batches: 0 }),
    JSON.stringify({ ...JSON.parse(first), batches: 0 }),
  );
  const other = collectLocation({ ...options, seed: 12 });
  assert.notEqual(JSON.stringify(other.orders), JSON.stringify(JSON.parse(first).orders));
  const ids = new Set(JSON.parse(first).orders.map((order: { id: string }) => order.id));
  assert.ok(other.orders.every((order) => !ids.has(order.id)));
});

test('batches hold at most batchSize records of each kind', () => {
  const generator = createLocationGenerator({ endDate: TEST_END_DATE, days: 30, batchSize: 40 });
  let batches = 0;
  for (const batch of generator.batches()) {
    batches += 1;
    assert.ok(batch.purchaseOrders.length <= 40 && batch.inventoryHistory.length <= 40);
  }
  assert.ok(batches > 10);
});

test('a default-sized location has every status and all 18 adjustment types', () => {
  const location = collectLocation({ seed: 42 });
  const statuses = new Set(location.orders.map((order) => order.status));
  assert.deepEqual([...statuses].sort(), [...PURCHASE_ORDER_STATUSES].sort());
  const types = new Map<string, number>();
  for (const entry of location.entries)
    types.set(entry.adjustmentType, (types.get(entry.adjustmentType) ?? 0) + 1);
  assert.deepEqual([...types.keys()].sort(), [...ADJUSTMENT_TYPES].sort());
  // Plausible frequencies: counts and receipts dominate, theft is rare.
  assert.ok((types.get('THEFT') ?? 0) < (types.get('WASTED') ?? 0) / 5);
  assert.ok((types.get('COUNT') ?? 0) > 1000 && (types.get('RECEIVE') ?? 0) > 1000);
  assert.ok(location.orders.length > 550 && location.orders.length < 750, `${location.orders.length} orders`);
});

test('the lifecycle is believable: drafts and open orders are recent, old settled orders archived', () => {
  const location = collectLocation({ seed: 5 });
  const end = Date.parse(`${TEST_END_DATE}T23:59:59.999Z`);
  const ageDays = (date: string) => (end - Date.parse(date)) / 86_400_000;
  for (const order of location.orders) {
    if (order.status === 'DRAFT' || order.status === 'ORDERED')
      assert.ok(ageDays(order.createdDate) < 8, order.id);
    if (order.archived) assert.ok(ageDays(order.createdDate) > 45, order.id);
    if (order.status === 'DRAFT' || order.status === 'VOIDED') assert.equal(order.paid, false, order.id);
  }
  const received = location.orders.filter((order) => order.status === 'RECEIVED');
  assert.ok(received.filter((order) => order.paid).length > received.length * 0.8);
  assert.ok(location.orders.some((order) => order.archived));
  assert.ok(location.orders.some((order) => order.purchasingEntityInfo.fees.length > 0));
  assert.ok(location.orders.some((order) => order.items.some((item) => item.discounts.length > 0)));
});

test('inventory tells one story: links, on-hand balances and dates', () => {
  const location = collectLocation({ seed: 3, days: 60 });
  const receives = new Map(
    location.entries
      .filter((entry) => entry.adjustmentType === 'RECEIVE')
      .map((e) => [e.inventoryHistoryLogId, e]),
  );
  let events = 0;
  for (const order of location.orders) {
    for (const item of order.items) {
      for (const event of item.receivedEvents) {
        events += 1;
        const entry = receives.get(event.inventoryHistoryId!);
        assert.ok(entry, `event of ${order.id} has its RECEIVE entry`);
        assert.equal(entry.purchaseOrderId, order.id);
        assert.equal(entry.supplier?.id, order.supplier.id);
        assert.equal(entry.itemVersionId, item.itemVersionId);
      }
    }
  }
  assert.equal(events, receives.size);
  const onHand = new Map<string, number>();
  let previous = '';
  for (const entry of location.entries) {
    assert.ok(entry.createdDate > previous, 'entries come in strictly increasing time order');
    previous = entry.createdDate;
    assert.ok(entry.quantityInfo.quantityOnHand >= 0);
    assert.equal(entry.modifiedDate, entry.createdDate);
    assert.match(entry.createdDate, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    onHand.set(entry.itemVersionId, entry.quantityInfo.quantityOnHand);
  }
  for (const order of location.orders) assert.ok(order.modifiedDate >= order.createdDate, order.id);
  assert.ok(location.entries.every((entry) => entry.createdDate < '2025-07-01'));
});

test('locations of one seed have distinct, readable names and ids', () => {
  const identities = Array.from({ length: 50 }, (_, index) => locationIdentity(42, index));
  assert.equal(new Set(identities.map((identity) => identity.id)).size, 50);
  for (const identity of identities) assert.match(identity.id, /^loc-[a-z0-9]+(-[a-z0-9]+)*$/);
  assert.equal(
    createLocationGenerator({ seed: 42, locationIndex: 1, endDate: TEST_END_DATE }).id,
    identities[1]!.id,
  );
});

test('options: defaults, yesterday as end date, and rejection of impossible values', () => {
  assert.equal(defaultEndDate(new Date('2025-03-01T10:00:00Z')), '2025-02-28');
  const resolved = resolveGenerateOptions({ endDate: TEST_END_DATE });
  assert.deepEqual(
    { ...resolved },
    {
      seed: 42,
      locationIndex: 0,
      days: 180,
      suppliers: 12,
      items: 150,
      ordersPerWeek: 25,
      endDate: TEST_END_DATE,
      batchSize: 1000,
    },
  );
  assert.throws(() => resolveGenerateOptions({ endDate: '2025-02-30' }), /calendar date/);
  assert.throws(() => resolveGenerateOptions({ days: 0 }), /days/);
  assert.throws(() => resolveGenerateOptions({ suppliers: 1.5 }), /suppliers/);
});
