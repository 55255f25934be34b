import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS } from '../../src/records/kinds.js';
import { ROW_KINDS } from '../../src/records/rows.js';
import { LarderError } from '../../src/shared/errors.js';
import { createValidator } from '../../src/shared/validator.js';
import { inventoryFixture, purchaseOrderFixture } from '../helpers/fixtures.js';

test('page tokens stay bound to the same text: [set, flag or null, from, before]', () => {
  const po = PURCHASE_ORDERS.parseFilter({
    purchaseOrderStatuses: ['ORDERED', 'DRAFT', 'ORDERED'],
    includeArchived: true,
    updatedDateRange: { startDate: '2024-01-01', endDate: '2024-01-02' },
  });
  assert.equal(po.binding, '[["DRAFT","ORDERED"],true,1704067200000,1704240000000]');
  assert.equal(PURCHASE_ORDERS.parseFilter({}).binding, '[[],false,null,null]');
  assert.equal(PURCHASE_ORDERS.parseFilter({ includeArchived: null }).binding, '[[],false,null,null]');
  const ih = INVENTORY_HISTORY.parseFilter({
    adjustmentType: ['WASTED', 'COUNT'],
    updatedDateRange: { startDate: '2024-01-01' },
  });
  assert.equal(ih.binding, '[["COUNT","WASTED"],null,1704067200000,null]');
});

test('filters become column conditions; archived orders are left out unless asked', () => {
  assert.deepEqual(PURCHASE_ORDERS.parseFilter({ purchaseOrderStatuses: ['RECEIVED'] }).where, [
    { op: 'anyOf', column: 'status', anyOf: ['RECEIVED'] },
    { op: 'equals', column: 'archived', equals: false },
  ]);
  assert.deepEqual(PURCHASE_ORDERS.parseFilter({ includeArchived: true }).where, [
    { op: 'anyOf', column: 'status', anyOf: [] },
  ]);
  assert.deepEqual(INVENTORY_HISTORY.parseFilter({}).where, [
    { op: 'anyOf', column: 'adjustment_type', anyOf: [] },
  ]);
});

test('invalid bodies and reversed ranges raise the same LarderErrors as before', () => {
  assert.throws(
    () => PURCHASE_ORDERS.parseFilter({ purchaseOrderStatuses: ['NOPE'] }),
    (error) => error instanceof LarderError && error.code === 'ERR_VALIDATION',
  );
  assert.throws(
    () =>
      INVENTORY_HISTORY.parseFilter({ updatedDateRange: { startDate: '2024-01-02', endDate: '2024-01-01' } }),
    (error) =>
      error instanceof LarderError &&
      error.code === 'ERR_DATE_RANGE' &&
      error.fieldName === 'updatedDateRange.endDate',
  );
});

test('the storage halves (rows.ts) list the kinds in RECORD_KINDS order', () => {
  assert.deepEqual(
    ROW_KINDS.map((kind) => kind.name),
    RECORD_KINDS.map((kind) => kind.name),
  );
  for (const [i, kind] of RECORD_KINDS.entries()) {
    assert.equal(kind.table, ROW_KINDS[i]!.table);
    assert.equal(kind.toRow, ROW_KINDS[i]!.toRow);
  }
});

test('a uuid field takes the UUID string form only: a urn:uuid: id could never be asked for by id', () => {
  const orders = createValidator(PURCHASE_ORDERS.schema);
  const entries = createValidator(INVENTORY_HISTORY.schema);
  const order = purchaseOrderFixture(1, { modifiedAt: Date.UTC(2025, 0, 1) });
  const entry = inventoryFixture(1, { modifiedAt: Date.UTC(2025, 0, 1) });
  assert.deepEqual(orders.problems(order), []);
  assert.deepEqual(orders.problems({ ...order, id: order.id.toUpperCase() }), [], 'any letter case');
  const urn = (id: string) => `urn:uuid:${id}`;
  assert.deepEqual(
    orders.problems({ ...order, id: urn(order.id) }).map((p) => p.fieldName),
    ['id'],
  );
  assert.deepEqual(
    orders
      .problems({ ...order, supplier: { ...order.supplier, id: urn(order.supplier.id) } })
      .map((p) => p.fieldName),
    ['supplier.id'],
  );
  assert.deepEqual(
    entries
      .problems({ ...entry, inventoryHistoryLogId: urn(entry.inventoryHistoryLogId) })
      .map((p) => p.fieldName),
    ['inventoryHistoryLogId'],
  );
});
