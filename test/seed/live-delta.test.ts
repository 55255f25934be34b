import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createLocationCheck } from '../../src/check/location-check.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from '../../src/records/schemas.js';
import { daysBetween, liveDelta } from '../../src/seed/live-delta.js';
import type { GenerateOptions } from '../../src/seed/options.js';
import { type CollectedLocation, collectLocation, TEST_END_DATE } from './collect.js';

type Options = Partial<GenerateOptions> & Pick<GenerateOptions, 'endDate'>;

const addDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The first instant after `endDate`, as stored dates spell it. */
const cutoffOf = (endDate: string): string => `${addDays(endDate, 1)}T00:00:00.000Z`;

/** The same location with `extra` more days at the end (same start). */
const extended = (options: Options & { days: number }, extra: number): Options & { days: number } => ({
  ...options,
  days: options.days + extra,
  endDate: addDays(options.endDate, extra),
});

interface Delta {
  orders: PurchaseOrder[];
  entries: InventoryHistoryLogEntry[];
}

const collectDelta = (options: Options, newEndDate: string): Delta => {
  const delta: Delta = { orders: [], entries: [] };
  for (const batch of liveDelta(options, newEndDate)) {
    delta.orders.push(...batch.purchaseOrders);
    delta.entries.push(...batch.inventoryHistory);
  }
  return delta;
};

const orderId = (order: PurchaseOrder) => order.id;
const entryId = (entry: InventoryHistoryLogEntry) => entry.inventoryHistoryLogId;

/** Records by id, as JSON; throws on a repeated id. */
const byId = <T>(records: readonly T[], id: (record: T) => string): Map<string, string> => {
  const map = new Map<string, string>();
  for (const record of records) {
    assert.ok(!map.has(id(record)), `id ${id(record)} repeats`);
    map.set(id(record), JSON.stringify(record));
  }
  return map;
};

/** Upserts `delta` into `base` by id (what an incremental sync does). */
const upsert = (base: Map<string, string>, delta: Map<string, string>): Map<string, string> => {
  const merged = new Map(base);
  for (const [id, json] of delta) merged.set(id, json);
  return merged;
};

const assertSameRecords = (actual: Map<string, string>, expected: Map<string, string>, what: string) => {
  assert.equal(actual.size, expected.size, `${what}: count`);
  for (const [id, json] of expected) assert.equal(actual.get(id), json, `${what} ${id}`);
};

/** The three prefix-stability properties of `later` against `earlier`, whose cutoff is `cutoff`. */
const assertPrefixStable = <T extends { modifiedDate: string }>(
  earlier: readonly T[],
  later: readonly T[],
  id: (record: T) => string,
  cutoff: string,
  what: string,
) => {
  const laterById = new Map(later.map((record) => [id(record), record]));
  const earlierIds = new Set<string>();
  for (const record of earlier) {
    earlierIds.add(id(record));
    assert.ok(record.modifiedDate < cutoff, `${what} ${id(record)} lies before its own cutoff`);
    const now = laterById.get(id(record));
    assert.ok(now !== undefined, `${what} ${id(record)} still exists`);
    if (JSON.stringify(now) !== JSON.stringify(record)) {
      assert.ok(
        now.modifiedDate >= cutoff,
        `${what} ${id(record)} changed, but its modifiedDate ${now.modifiedDate} is before ${cutoff}`,
      );
    }
  }
  for (const record of later) {
    if (!earlierIds.has(id(record))) {
      assert.ok(record.modifiedDate >= cutoff, `new ${what} ${id(record)} at ${record.modifiedDate}`);
    }
  }
};

const runCheck = (location: CollectedLocation) => {
  const check = createLocationCheck(location.id);
  for (const entry of location.entries) check.inventoryEntry(entry);
  for (const order of location.orders) check.purchaseOrder(order);
  return check.finish();
};

test('daysBetween counts whole days and refuses to go back', () => {
  assert.equal(daysBetween('2025-06-30', '2025-06-30'), 0);
  assert.equal(daysBetween('2025-06-30', '2025-07-03'), 3);
  assert.equal(daysBetween('2024-02-28', '2024-03-01'), 2);
  assert.throws(() => daysBetween('2025-06-30', '2025-06-29'), /before/);
  assert.throws(() => [...liveDelta({ endDate: TEST_END_DATE, days: 10 }, '2025-06-29')], /before/);
  assert.deepEqual([...liveDelta({ endDate: TEST_END_DATE, days: 10 }, TEST_END_DATE)], []);
});

test('a longer history repeats the shorter one up to its cutoff, and the delta upserted onto it gives the longer one', () => {
  fc.assert(
    fc.property(
      fc.record({
        seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        locationIndex: fc.integer({ min: 0, max: 5 }),
        days: fc.integer({ min: 5, max: 60 }),
        ordersPerWeek: fc.integer({ min: 3, max: 40 }),
        items: fc.integer({ min: 5, max: 40 }),
        suppliers: fc.integer({ min: 1, max: 5 }),
        batchSize: fc.integer({ min: 7, max: 500 }),
        endDate: fc.constantFrom(TEST_END_DATE, '2024-02-27', '2025-12-30'),
      }),
      fc.integer({ min: 1, max: 30 }),
      (options, extra) => {
        const cutoff = cutoffOf(options.endDate);
        const later = extended(options, extra);
        const before = collectLocation(options);
        const after = collectLocation(later);
        assertPrefixStable(before.orders, after.orders, orderId, cutoff, 'purchase order');
        assertPrefixStable(before.entries, after.entries, entryId, cutoff, 'inventory entry');
        assert.deepEqual(runCheck(after), []);

        const delta = collectDelta(options, later.endDate);
        for (const record of [...delta.orders, ...delta.entries]) assert.ok(record.modifiedDate >= cutoff);
        assertSameRecords(
          upsert(byId(before.orders, orderId), byId(delta.orders, orderId)),
          byId(after.orders, orderId),
          'purchase order',
        );
        assertSameRecords(
          upsert(byId(before.entries, entryId), byId(delta.entries, entryId)),
          byId(after.entries, entryId),
          'inventory entry',
        );
      },
    ),
    { numRuns: 25, seed: 20251123 },
  );
});

test('deltas chain: E→E+3 then E+3→E+10 is E→E+10', () => {
  const options = { seed: 314, locationIndex: 1, days: 45, ordersPerWeek: 20, endDate: TEST_END_DATE };
  const step = extended(options, 3);
  const end = addDays(options.endDate, 10);
  const before = collectLocation(options);
  const first = collectDelta(options, step.endDate);
  const second = collectDelta(step, end);
  const whole = collectDelta(options, end);
  const chain = (pick: (delta: Delta) => Map<string, string>) => upsert(pick(first), pick(second));
  const orders = (delta: Delta) => byId(delta.orders, orderId);
  const entries = (delta: Delta) => byId(delta.entries, entryId);
  assertSameRecords(chain(orders), orders(whole), 'purchase order');
  assertSameRecords(chain(entries), entries(whole), 'inventory entry');
  // And onto the first generation, both give the longer one.
  const after = collectLocation(extended(options, 10));
  assertSameRecords(
    upsert(byId(before.orders, orderId), chain(orders)),
    byId(after.orders, orderId),
    'order',
  );
  // The second step holds only what changed after the first step's cutoff.
  const stepCutoff = cutoffOf(step.endDate);
  for (const record of [...second.orders, ...second.entries]) assert.ok(record.modifiedDate >= stepCutoff);
});

test('over 30 more days orders move on, each change dated at or after the old cutoff', () => {
  const options = { seed: 8, days: 60, ordersPerWeek: 30, endDate: TEST_END_DATE };
  const cutoff = cutoffOf(options.endDate);
  const before = byId(collectLocation(options).orders, orderId);
  const delta = collectDelta(options, addDays(options.endDate, 30));
  const moves = new Map<string, number>();
  const note = (move: string) => moves.set(move, (moves.get(move) ?? 0) + 1);
  for (const order of delta.orders) {
    assert.ok(order.modifiedDate >= cutoff);
    const old = before.get(order.id);
    if (old === undefined) {
      note('new');
      assert.ok(order.createdDate >= cutoff, `new order ${order.id} created at ${order.createdDate}`);
      continue;
    }
    const was = JSON.parse(old) as PurchaseOrder;
    assert.equal(order.createdDate, was.createdDate);
    assert.equal(order.platformGeneratedPurchaseOrderNumber, was.platformGeneratedPurchaseOrderNumber);
    if (was.status !== order.status) note(`${was.status}→${order.status}`);
    if (!was.archived && order.archived) note('archived');
    if (!was.paid && order.paid) note('paid');
    // Received events are only ever added.
    order.items.forEach((item, i) => {
      const events = was.items[i]!.receivedEvents;
      assert.deepEqual(item.receivedEvents.slice(0, events.length), events);
    });
  }
  const summary = JSON.stringify(Object.fromEntries(moves));
  for (const move of ['new', 'ORDERED→RECEIVED', 'archived', 'paid']) {
    assert.ok((moves.get(move) ?? 0) > 0, `no ${move} in ${summary}`);
  }
  // Drafts waiting at the old cutoff were sent after it (and are usually received by now).
  assert.ok(summary.includes('"DRAFT→'), `no draft moved on in ${summary}`);
  // The receipts of old orders arrive with the delta, after the old cutoff.
  const received = delta.entries.filter((entry) => entry.adjustmentType === 'RECEIVE');
  assert.ok(received.some((entry) => before.has(entry.purchaseOrderId!)));
  assert.ok(delta.entries.some((entry) => entry.adjustmentType === 'COUNT'));
});

test('a default demo location extended by a day and by 30 days keeps its history and passes the check', () => {
  const options = { seed: 42, days: 180, endDate: TEST_END_DATE };
  const cutoff = cutoffOf(options.endDate);
  const before = collectLocation(options);
  for (const extra of [1, 30]) {
    const after = collectLocation(extended(options, extra));
    assertPrefixStable(before.orders, after.orders, orderId, cutoff, 'purchase order');
    assertPrefixStable(before.entries, after.entries, entryId, cutoff, 'inventory entry');
    assert.deepEqual(runCheck(after), []);
  }
});
