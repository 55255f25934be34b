import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { RecordRow } from '../../src/records/kinds.js';
import { INVENTORY_HISTORY, PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { ADJUSTMENT_TYPES, PURCHASE_ORDER_STATUSES } from '../../src/records/schemas.js';
import type { Cursor, Store, StoredPage, StoredRow } from '../../src/storage/store.js';
import { type BackendInstance, backends, describeBackend } from './backends.js';
import {
  adjustmentTypeOf,
  archivedOf,
  importInto,
  inventoryEntry,
  inventorySearch,
  purchaseOrder,
  purchaseOrderSearch,
  statusOf,
  T0,
  text,
} from './records.js';

/**
 * For random records and random filters, walking the pages through the after-cursor yields exactly the matching
 * records, once each, in (modifiedAt, id) order: the paging guarantees of the API rest on this.
 */

const S = 1000;
const RUNS = 25;

/** Few distinct instants, so ties on modifiedAt (broken by id) are common. */
const instant = fc.integer({ min: 0, max: 6 }).map((step) => T0 + step * S);
const bound = fc.option(
  fc.integer({ min: -1, max: 7 }).map((step) => T0 + step * S),
  { nil: undefined },
);

interface Range {
  modifiedFrom?: number;
  modifiedBefore?: number;
  limit: number;
}

/** Either bound may be absent. */
const range = fc.tuple(bound, bound, fc.integer({ min: 1, max: 6 })).map(
  ([from, before, limit]): Range => ({
    limit,
    ...(from === undefined ? {} : { modifiedFrom: from }),
    ...(before === undefined ? {} : { modifiedBefore: before }),
  }),
);

const orderSpec = fc.record({
  status: fc.constantFrom(...PURCHASE_ORDER_STATUSES),
  archived: fc.boolean(),
  modifiedAt: instant,
});
const entrySpec = fc.record({
  // A handful of types, so a random filter often matches something.
  adjustmentType: fc.constantFrom(...ADJUSTMENT_TYPES.slice(0, 4)),
  modifiedAt: instant,
});

const byPosition = (a: StoredRow, b: StoredRow): number =>
  a.modifiedAt - b.modifiedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const inRange = (modifiedAt: number, range: Range): boolean =>
  (range.modifiedFrom === undefined || modifiedAt >= range.modifiedFrom) &&
  (range.modifiedBefore === undefined || modifiedAt < range.modifiedBefore);

/** Pages until one comes back short; `position` is what to pass on (no cursor on the first page). */
const walk = async (limit: number, page: (position: { after?: Cursor }) => Promise<StoredRow[]>) => {
  const seen: StoredRow[] = [];
  let position: { after?: Cursor } = {};
  for (;;) {
    const rows = await page(position);
    assert.ok(rows.length <= limit, 'page longer than the limit');
    seen.push(...rows);
    if (rows.length < limit) return seen;
    const last = rows.at(-1)!;
    position = { after: { modifiedAt: last.modifiedAt, id: last.id } };
  }
};

/**
 * The same walk through `page()`, as the API pages: the records' JSON joined with commas, page after page, and
 * `more` true exactly while records follow (a page followed by more is full).
 */
const walkPages = async (limit: number, page: (position: { after?: Cursor }) => Promise<StoredPage>) => {
  const joined: string[] = [];
  let position: { after?: Cursor } = {};
  for (;;) {
    const result = await page(position);
    assert.equal(result.chunks.length > 0, result.count > 0, 'chunks exactly when records');
    if (result.count > 0) joined.push(result.chunks.map((chunk) => text(chunk)).join(','));
    if (!result.more) {
      assert.ok(result.count <= limit, 'page longer than the limit');
      return joined.join(',');
    }
    assert.equal(result.count, limit, 'a page followed by more is full');
    position = { after: result.last! };
  }
};

const joinedJson = (rows: readonly StoredRow[]) => rows.map((row) => text(row.json)).join(',');

/**
 * Non-ASCII text of varying length in each body (one to three bytes a character), so a page whose bodies come
 * as bytes, trimmed by byte lengths, is checked on more than ASCII.
 */
const withText = (row: RecordRow, n: number): RecordRow => ({
  ...row,
  json: row.json.replace(/}$/, `,"name":"${'Mëtrø ł€'.repeat(n % 4)}"}`),
});

const positions = (rows: readonly StoredRow[]) =>
  rows.map(({ modifiedAt, id, json }) => ({ modifiedAt, id, json: text(json) }));

for (const backend of await backends()) {
  describeBackend(`keyset walk property: ${backend.name}`, backend, () => {
    let instance: BackendInstance;
    let store: Store;
    before(async () => {
      instance = await backend.create();
      store = instance.store;
    });
    after(async () => {
      await instance?.destroy();
    });

    test('purchase orders: every match exactly once, in order', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(orderSpec, { maxLength: 30 }),
          range,
          fc.subarray([...PURCHASE_ORDER_STATUSES]),
          fc.boolean(),
          async (specs, bounds, statuses, includeArchived) => {
            const records = specs.map((spec, n) =>
              withText(purchaseOrder(n, spec.modifiedAt, spec.status, spec.archived), n),
            );
            const locationId = await importInto(store, { purchaseOrders: records });
            const expected = records
              .filter((record) => statuses.length === 0 || statuses.includes(statusOf(record)))
              .filter((record) => includeArchived || !archivedOf(record))
              .filter((record) => inRange(record.modifiedAt, bounds))
              .sort(byPosition);
            const query = (position: { after?: Cursor }) =>
              purchaseOrderSearch({ locationId, statuses, includeArchived, ...position, ...bounds });
            const seen = await walk(bounds.limit, (position) =>
              store.records.search(PURCHASE_ORDERS, query(position)),
            );
            assert.deepEqual(positions(seen), positions(expected));
            const paged = await walkPages(bounds.limit, (position) =>
              store.records.page(PURCHASE_ORDERS, query(position)),
            );
            assert.equal(paged, joinedJson(expected));
          },
        ),
        { numRuns: RUNS },
      );
    });

    test('inventory entries: every match exactly once, in order', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(entrySpec, { maxLength: 30 }),
          range,
          fc.subarray(ADJUSTMENT_TYPES.slice(0, 5)),
          async (specs, bounds, adjustmentTypes) => {
            const records = specs.map((spec, n) =>
              withText(inventoryEntry(n, spec.modifiedAt, spec.adjustmentType), n),
            );
            const locationId = await importInto(store, { inventory: records });
            const expected = records
              .filter(
                (record) =>
                  adjustmentTypes.length === 0 || adjustmentTypes.includes(adjustmentTypeOf(record)),
              )
              .filter((record) => inRange(record.modifiedAt, bounds))
              .sort(byPosition);
            const query = (position: { after?: Cursor }) =>
              inventorySearch({ locationId, adjustmentTypes, ...position, ...bounds });
            const seen = await walk(bounds.limit, (position) =>
              store.records.search(INVENTORY_HISTORY, query(position)),
            );
            assert.deepEqual(positions(seen), positions(expected));
            const paged = await walkPages(bounds.limit, (position) =>
              store.records.page(INVENTORY_HISTORY, query(position)),
            );
            assert.equal(paged, joinedJson(expected));
          },
        ),
        { numRuns: RUNS },
      );
    });
  });
}
