import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Finding, FindingKind } from '../../src/check/findings.js';
import { createLocationCheck } from '../../src/check/location-check.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from '../../src/records/schemas.js';
import { type CollectedLocation, collectLocation } from '../seed/collect.js';

const runCheck = (location: Pick<CollectedLocation, 'id' | 'orders' | 'entries'>): Finding[] => {
  const check = createLocationCheck(location.id);
  for (const entry of location.entries) check.inventoryEntry(entry);
  for (const order of location.orders) check.purchaseOrder(order);
  return check.finish();
};

test('generated data passes the checker at several seeds and sizes', () => {
  const sizes = [
    { seed: 1, days: 30 },
    { seed: 42, days: 90, ordersPerWeek: 40 },
    { seed: 8, days: 30, ordersPerWeek: 150, items: 20, suppliers: 2 },
    { seed: 77, days: 25, items: 400, suppliers: 30, locationIndex: 4 },
  ];
  for (const size of sizes) assert.deepEqual(runCheck(collectLocation(size)), [], JSON.stringify(size));
});

const base = collectLocation({ seed: 21, days: 60, ordersPerWeek: 40 });

/** A fresh copy of the fixture to break, with the lookups the tests need. */
const broken = () => {
  const location = structuredClone(base);
  const entry = (id: string | undefined): InventoryHistoryLogEntry => {
    const found = location.entries.find((candidate) => candidate.inventoryHistoryLogId === id);
    assert.ok(found, `entry ${id}`);
    return found;
  };
  const order = (
    status: PurchaseOrder['status'],
    predicate: (order: PurchaseOrder) => boolean = () => true,
  ) => {
    const found = location.orders.find((candidate) => candidate.status === status && predicate(candidate));
    assert.ok(found, `an order ${status}`);
    return found;
  };
  return { location, entry, order };
};

const expectFinding = (location: CollectedLocation, kind: FindingKind, recordId: string, message: RegExp) => {
  const findings = runCheck(location);
  assert.ok(
    findings.some((f) => f.kind === kind && f.recordId === recordId && message.test(f.message)),
    `expected ${kind} on ${recordId} matching ${message}, got ${JSON.stringify(findings, null, 1)}`,
  );
  for (const finding of findings) assert.equal(finding.locationId, location.id);
};

test('the fixture itself is consistent', () => {
  assert.deepEqual(runCheck(base), []);
});

test('a received event without its RECEIVE entry', () => {
  const { location, order } = broken();
  const target = order('RECEIVED');
  const missing = target.items[0]!.receivedEvents[0]!.inventoryHistoryId;
  location.entries = location.entries.filter((entry) => entry.inventoryHistoryLogId !== missing);
  expectFinding(location, 'receive-link', target.id, /no RECEIVE entry/);
});

test('a RECEIVE entry no received event links to', () => {
  const { location, order } = broken();
  const event = order('RECEIVED').items[0]!.receivedEvents[0]!;
  const orphan = event.inventoryHistoryId!;
  event.inventoryHistoryId = '00000000-0000-4000-8000-000000000000';
  expectFinding(location, 'receive-link', orphan, /no received event links/);
});

test('a RECEIVE entry naming another order, item or supplier, or linked twice', () => {
  const { location, order, entry } = broken();
  const first = order('RECEIVED');
  const second = order('RECEIVED', (candidate) => candidate.supplier.id !== first.supplier.id);
  const receipt = entry(first.items[0]!.receivedEvents[0]!.inventoryHistoryId);
  receipt.purchaseOrderId = second.id;
  receipt.supplier = second.supplier;
  expectFinding(location, 'receive-link', first.id, /names purchase order/);
  expectFinding(location, 'receive-link', first.id, /names supplier/);
  receipt.itemVersionId = second.items[0]!.itemVersionId;
  expectFinding(location, 'receive-link', first.id, /is for item/);

  const again = broken();
  const twice = again.order('RECEIVED', (candidate) => candidate.items.length > 1);
  twice.items[1]!.receivedEvents[0]!.inventoryHistoryId =
    twice.items[0]!.receivedEvents[0]!.inventoryHistoryId!;
  expectFinding(again.location, 'receive-link', twice.id, /already linked/);
});

test('a RECEIVE entry whose on-hand change is not received quantity × quantity in unit', () => {
  const { location, order, entry } = broken();
  const target = order('RECEIVED');
  entry(target.items[0]!.receivedEvents[0]!.inventoryHistoryId).quantityInfo.quantityOnHand += 5;
  expectFinding(location, 'receive-link', target.id, /adds .* on hand/);
});

test('line, order and landed totals that do not add up', () => {
  const cases: Array<[(order: PurchaseOrder) => void, RegExp]> = [
    [(o) => (o.items[0]!.orderedItemInfo.orderedCost!.subtotal! += 1), /items\[0\].*subtotal is .* expected/],
    [(o) => (o.items[0]!.orderedItemInfo.orderedCost!.total! -= 0.5), /items\[0\].*total is .* expected/],
    [(o) => (o.purchaseOrderTotals.itemsSubtotal! += 0.02), /itemsSubtotal/],
    [(o) => (o.purchaseOrderTotals.subtotalCost! += 3), /subtotalCost/],
    [(o) => (o.purchaseOrderTotals.totalCost += 10), /totalCost/],
    [(o) => (o.items[0]!.orderedItemInfo.orderedCost!.landedCost! *= 1.5), /landedCost/],
    [(o) => (o.items[0]!.receivedEvents[0]!.receivedCosts!.subtotal! += 2), /receivedCosts.subtotal/],
  ];
  for (const [mutate, message] of cases) {
    const { location, order } = broken();
    const target = order('RECEIVED');
    mutate(target);
    expectFinding(location, 'totals', target.id, message);
  }
  const { location, order } = broken();
  const taxed = order('RECEIVED', (o) =>
    o.purchasingEntityInfo.fees.some((fee) => fee.percentageValue != null),
  );
  const fee = taxed.purchasingEntityInfo.fees.find((candidate) => candidate.percentageValue != null)!;
  fee.absoluteValue! += 1;
  expectFinding(location, 'totals', taxed.id, /purchasingEntityInfo\.fees\[\d\]\.absoluteValue/);
});

test('negative on-hand and modifiedDate before createdDate', () => {
  const { location, order } = broken();
  const waste = location.entries.findLast((entry) => entry.adjustmentType === 'WASTED')!;
  waste.quantityInfo.quantityOnHand = -3;
  expectFinding(location, 'negative-on-hand', waste.inventoryHistoryLogId, /-3/);
  const target = order('RECEIVED');
  target.modifiedDate = '2020-01-01T00:00:00.000Z';
  expectFinding(location, 'dates', target.id, /before createdDate/);
  const count = location.entries.find((entry) => entry.adjustmentType === 'COUNT')!;
  count.modifiedDate = '2020-01-01T00:00:00.000Z';
  expectFinding(location, 'dates', count.inventoryHistoryLogId, /before createdDate/);
});

test('received quantity above ordered quantity', () => {
  const { location, order } = broken();
  const target = order('RECEIVED');
  target.items[0]!.receivedEvents[0]!.receivedQuantity += 1;
  expectFinding(location, 'over-received', target.id, /items\[0\].*received .* ordered/);
});

test('statuses that contradict the received events', () => {
  const cases: Array<[PurchaseOrder['status'], PurchaseOrder['status'], RegExp]> = [
    ['RECEIVED', 'ORDERED', /ORDERED, but items were received/],
    ['RECEIVED', 'DRAFT', /DRAFT, but items were received/],
    ['RECEIVED', 'VOIDED', /VOIDED, but items were received/],
    ['RECEIVED', 'PARTIALLY_RECEIVED', /every item is fully received/],
    ['PARTIALLY_RECEIVED', 'RECEIVED', /not fully received/],
    ['ORDERED', 'RECEIVED', /nothing was received/],
    ['ORDERED', 'PARTIALLY_RECEIVED', /nothing was received/],
  ];
  for (const [from, to, message] of cases) {
    const { location, order } = broken();
    const target = order(from);
    target.status = to;
    expectFinding(location, 'status', target.id, message);
  }
});
