import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, RECORD_KINDS, type RecordRow } from '../../src/records/kinds.js';
import type { InventoryHistoryAdjustmentType, PurchaseOrderStatus } from '../../src/records/schemas.js';
import type { Cursor, RecordSearch, Store, StoredRow } from '../../src/storage/store.js';
import { type BackendInstance, backends, describeBackend } from './backends.js';
import {
  client,
  idFor,
  importInto,
  inventoryEntry,
  newLocationId,
  purchaseOrder,
  rejectsWithStoreError,
  signingKey,
  T0,
  text,
} from './records.js';

const S = 1000;

/** Seven orders with ties on modifiedAt, imported out of order. */
const ORDERS: RecordRow[] = [
  purchaseOrder(6, T0 + 3 * S, 'PARTIALLY_RECEIVED'),
  purchaseOrder(3, T0 + S, 'RECEIVED', true),
  purchaseOrder(1, T0, 'DRAFT'),
  purchaseOrder(7, T0 + 3 * S, 'DRAFT'),
  purchaseOrder(4, T0 + S, 'VOIDED'),
  purchaseOrder(2, T0 + S, 'ORDERED'),
  purchaseOrder(5, T0 + 2 * S, 'ORDERED', true),
];

const ENTRIES = [
  inventoryEntry(4, T0 + 2 * S, 'WASTED'),
  inventoryEntry(1, T0, 'COUNT'),
  inventoryEntry(3, T0 + S, 'COUNT'),
  inventoryEntry(2, T0 + S, 'RECEIVE'),
  inventoryEntry(5, T0 + 2 * S, 'RECEIVE'),
];

const ids = (rows: readonly StoredRow[]): string[] => rows.map((row) => row.id);

/** SQLite reads share one snapshot per event-loop turn: another instance's commit shows from the next turn. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const idsOf = (...ns: number[]): string[] => ns.map(idFor);

interface Bounds {
  modifiedFrom?: number;
  modifiedBefore?: number;
  after?: Cursor;
  limit?: number;
}

interface PurchaseOrderSearch extends Bounds {
  statuses?: PurchaseOrderStatus[];
  includeArchived?: boolean;
}

interface InventorySearch extends Bounds {
  adjustmentTypes?: InventoryHistoryAdjustmentType[];
}

/** A purchase-order search as the API's filter states it: statuses (empty: any), archived ones only when asked. */
const poQuery = (
  locationId: string,
  { statuses = [], includeArchived = true, ...bounds }: PurchaseOrderSearch = {},
): RecordSearch => ({
  locationId,
  limit: 100,
  ...bounds,
  where: [
    { op: 'anyOf', column: 'status', anyOf: statuses },
    ...(includeArchived ? [] : [{ op: 'equals' as const, column: 'archived', equals: false }]),
  ],
});

const inventoryQuery = (
  locationId: string,
  { adjustmentTypes = [], ...bounds }: InventorySearch = {},
): RecordSearch => ({
  locationId,
  limit: 100,
  ...bounds,
  where: [{ op: 'anyOf', column: 'adjustment_type', anyOf: adjustmentTypes }],
});

const collect = async (batches: AsyncIterable<string[]>): Promise<string[][]> => {
  const all: string[][] = [];
  for await (const batch of batches) all.push(batch);
  return all;
};

for (const backend of await backends()) {
  describeBackend(`storage contract: ${backend.name}`, backend, () => {
    let instance: BackendInstance;
    let store: Store;
    let peer: Store;
    /** Holds ORDERS and ENTRIES. */
    let shop: string;

    before(async () => {
      instance = await backend.create();
      store = instance.store;
      peer = await instance.openPeer();
      shop = await importInto(store, { purchaseOrders: ORDERS, inventory: ENTRIES });
    });

    after(async () => {
      await instance?.destroy();
    });

    test('describes its engine and answers ping', async () => {
      assert.equal(store.describe(), backend.name);
      await store.ping();
      await peer.ping();
    });

    test('declares its capabilities', () => {
      const embedded = backend.name === 'sqlite';
      assert.deepEqual(store.capabilities, { writesOnMainThread: embedded, embedded });
    });

    test('once closed, reads, writes and imports fail with STORE_CLOSED, and closing again is harmless', async () => {
      const closed = await instance.openPeer();
      await closed.close();
      await rejectsWithStoreError(closed.ping(), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.locations.get(shop), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.auth.version(), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.records.get(PURCHASE_ORDERS, shop, idFor(1)), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.locations.upsert({ id: newLocationId() }), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.auth.createClient(client()), 'STORE_CLOSED');
      await rejectsWithStoreError(closed.records.beginImport({ id: newLocationId() }), 'STORE_CLOSED');
      await closed.close();
    });

    test('close() rolls back an import left open instead of waiting for it, and frees the database', async () => {
      const closing = await instance.openPeer();
      const id = newLocationId();
      const session = await closing.records.beginImport({ id });
      await session.put(PURCHASE_ORDERS, [purchaseOrder(1, T0)]);
      await closing.close();
      await rejectsWithStoreError(session.put(PURCHASE_ORDERS, [purchaseOrder(2, T0)]), 'STORE_CLOSED');
      await rejectsWithStoreError(session.commit(), 'STORE_CLOSED');
      assert.equal(await store.locations.get(id), undefined);
      const other = newLocationId();
      await store.locations.upsert({ id: other });
      assert.equal((await store.locations.get(other))?.id, other);
    });

    describe('locations', () => {
      test('upsertLocation creates with the id as default name, renames only when a name is given', async () => {
        const id = newLocationId();
        assert.equal(await store.locations.get(id), undefined);
        const created = await store.locations.upsert({ id });
        assert.equal(created.id, id);
        assert.equal(created.name, id);
        assert.ok(!Number.isNaN(Date.parse(created.createdAt)), created.createdAt);
        const renamed = await store.locations.upsert({ id, name: 'Main Street' });
        assert.deepEqual(renamed, { ...created, name: 'Main Street' });
        assert.deepEqual(await store.locations.upsert({ id }), renamed);
        assert.deepEqual(await peer.locations.get(id), renamed);
      });

      test('listLocations is ordered by id and counts each location’s records', async () => {
        const empty = newLocationId();
        await store.locations.upsert({ id: empty, name: 'Empty' });
        const list = await store.locations.list();
        const listed = list.map((location) => location.id);
        assert.deepEqual(listed, [...listed].sort());
        const mine = list.find((location) => location.id === shop);
        assert.equal(mine?.purchaseOrders, ORDERS.length);
        assert.equal(mine?.inventoryEntries, ENTRIES.length);
        const other = list.find((location) => location.id === empty);
        assert.deepEqual(other, {
          ...(await store.locations.get(empty)),
          purchaseOrders: 0,
          inventoryEntries: 0,
        });
      });
    });

    describe('deleting a location', () => {
      test('removes the location and all its records, atomically, leaving other locations alone', async () => {
        const gone = await importInto(store, {
          purchaseOrders: [purchaseOrder(1, T0)],
          inventory: [inventoryEntry(1, T0)],
        });
        const kept = await importInto(store, {
          purchaseOrders: [purchaseOrder(1, T0)],
          inventory: [inventoryEntry(1, T0)],
        });
        assert.equal(await store.locations.delete(gone), true);
        assert.equal(await store.locations.get(gone), undefined);
        await new Promise((resolve) => setImmediate(resolve));
        for (const kind of RECORD_KINDS) {
          assert.deepEqual(await collect(peer.records.scan(kind, gone)), [], kind.name);
          assert.equal((await collect(peer.records.scan(kind, kept))).length, 1, kind.name);
        }
        assert.equal(await store.locations.delete(gone), false);
      });
    });

    describe('get by id', () => {
      test('returns the stored JSON text byte for byte', async () => {
        const json = '{"z":1,  "a":"é \\u2028 \\"quoted\\" \\\\ 😀","big":12345678901234567890,"n":1.10}';
        const order = { ...purchaseOrder(1, T0), json };
        const entry = { ...inventoryEntry(1, T0), json: `${json} ` };
        const location = await importInto(store, { purchaseOrders: [order], inventory: [entry] });
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, order.id)), json);
        assert.equal(text(await store.records.get(INVENTORY_HISTORY, location, entry.id)), `${json} `);
        const [row] = await store.records.search(PURCHASE_ORDERS, poQuery(location));
        assert.equal(text(row?.json), json);
      });

      test('returns large records whole, one by one and as a page', async () => {
        // On PostgreSQL these rows arrive across many socket reads, and the driver's parser moves and reuses its
        // buffer between them: each row must be the bytes stored, not a view of memory since overwritten.
        const orders = Array.from({ length: 30 }, (_, n) => ({
          ...purchaseOrder(n, T0 + n),
          json: JSON.stringify({ n, pad: `${n}`.repeat(7_000 + 331 * n), mark: 'é × 😀' }),
        }));
        const huge = { ...purchaseOrder(99, T0 + 99), json: JSON.stringify({ pad: 'x'.repeat(300_000) }) };
        const location = await importInto(store, { purchaseOrders: [...orders, huge] });
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, huge.id)), huge.json);
        const rows = await store.records.search(PURCHASE_ORDERS, poQuery(location, { limit: 31 }));
        assert.deepEqual(
          rows.map((row) => text(row.json)),
          [...orders, huge].map((order) => order.json),
        );
        const fetched = await Promise.all(
          orders.map((order) => store.records.get(PURCHASE_ORDERS, location, order.id)),
        );
        assert.deepEqual(
          fetched.map((json) => text(json)),
          orders.map((order) => order.json),
        );
      });

      test('ignores UUID letter case', async () => {
        const order = ORDERS[0]!;
        assert.equal(
          text(await store.records.get(PURCHASE_ORDERS, shop, order.id.toUpperCase())),
          order.json,
        );
        const entry = ENTRIES[0]!;
        assert.equal(
          text(await store.records.get(INVENTORY_HISTORY, shop, entry.id.toUpperCase())),
          entry.json,
        );
      });

      test('is undefined for an unknown id or another location’s record', async () => {
        const other = await importInto(store, { purchaseOrders: [purchaseOrder(99, T0)] });
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, shop, idFor(99))), undefined);
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, other, idFor(1))), undefined);
        assert.equal(text(await store.records.get(INVENTORY_HISTORY, other, idFor(1))), undefined);
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, newLocationId(), idFor(1))), undefined);
      });
    });

    describe('pages', () => {
      test('hold the search’s records joined, and any room they declare lies inside the chunk’s own buffer', async () => {
        const all = await store.records.search(PURCHASE_ORDERS, poQuery(shop));
        for (const limit of [1, 3, all.length, all.length + 5]) {
          const page = await store.records.page(PURCHASE_ORDERS, poQuery(shop, { limit }));
          const expected = all.slice(0, limit);
          assert.equal(page.count, expected.length);
          assert.equal(page.more, all.length > limit);
          assert.deepEqual(page.last, { modifiedAt: expected.at(-1)!.modifiedAt, id: expected.at(-1)!.id });
          assert.equal(
            page.chunks.map((chunk) => text(chunk)).join(','),
            expected.map((row) => text(row.json)).join(','),
          );
          // The reader writes the envelope into the room: it must be the chunk's own bytes, never past its buffer.
          if (page.room === undefined) continue;
          assert.equal(page.chunks.length, 1);
          const chunk = page.chunks[0] as Uint8Array;
          assert.ok(chunk instanceof Uint8Array);
          assert.ok(chunk.byteOffset - page.room.before >= 0);
          assert.ok(chunk.byteOffset + chunk.byteLength + page.room.after <= chunk.buffer.byteLength);
        }
      });
    });

    describe('purchase order search', () => {
      test('orders by modifiedAt then id, with the position and stored JSON', async () => {
        const rows = await store.records.search(PURCHASE_ORDERS, poQuery(shop));
        assert.deepEqual(ids(rows), idsOf(1, 2, 3, 4, 5, 6, 7));
        const byId = new Map(ORDERS.map((order) => [order.id, order]));
        for (const row of rows) {
          const order = byId.get(row.id);
          assert.deepEqual(
            { ...row, json: text(row.json) },
            { modifiedAt: order?.modifiedAt, id: order?.id, json: order?.json },
          );
        }
      });

      test('returns only rows strictly after the cursor', async () => {
        const after = async (modifiedAt: number, id: string) =>
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(shop, { after: { modifiedAt, id } })));
        assert.deepEqual(await after(T0 + S, idFor(2)), idsOf(3, 4, 5, 6, 7));
        assert.deepEqual(await after(T0 + S, ''), idsOf(2, 3, 4, 5, 6, 7));
        assert.deepEqual(await after(T0 + S / 2, idFor(99)), idsOf(2, 3, 4, 5, 6, 7));
        assert.deepEqual(await after(T0 + 3 * S, idFor(6)), idsOf(7));
        assert.deepEqual(await after(T0 + 3 * S, idFor(7)), []);
      });

      test('modifiedFrom is inclusive, modifiedBefore exclusive', async () => {
        const within = async (range: { modifiedFrom?: number; modifiedBefore?: number }) =>
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(shop, range)));
        assert.deepEqual(await within({ modifiedFrom: T0 + S }), idsOf(2, 3, 4, 5, 6, 7));
        assert.deepEqual(await within({ modifiedFrom: T0 + S + 1 }), idsOf(5, 6, 7));
        assert.deepEqual(await within({ modifiedBefore: T0 + 3 * S }), idsOf(1, 2, 3, 4, 5));
        assert.deepEqual(await within({ modifiedBefore: T0 }), []);
        assert.deepEqual(await within({ modifiedFrom: T0 + S, modifiedBefore: T0 + 2 * S }), idsOf(2, 3, 4));
        assert.deepEqual(await within({ modifiedFrom: T0 + 2 * S, modifiedBefore: T0 + S }), []);
      });

      test('filters by status (empty: any) and leaves archived orders out unless asked', async () => {
        const search = async (query: Partial<PurchaseOrderSearch>) =>
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(shop, query)));
        assert.deepEqual(await search({ statuses: ['ORDERED'] }), idsOf(2, 5));
        assert.deepEqual(await search({ statuses: ['DRAFT', 'ORDERED'] }), idsOf(1, 2, 5, 7));
        assert.deepEqual(await search({ statuses: ['ORDERED'], includeArchived: false }), idsOf(2));
        assert.deepEqual(await search({ includeArchived: false }), idsOf(1, 2, 4, 6, 7));
        assert.deepEqual(await search({ statuses: ['RECEIVED'], includeArchived: false }), []);
      });

      test('combines status, archived, bounds, cursor and limit', async () => {
        const rows = await store.records.search(
          PURCHASE_ORDERS,
          poQuery(shop, {
            statuses: ['ORDERED', 'RECEIVED', 'DRAFT', 'PARTIALLY_RECEIVED'],
            includeArchived: false,
            modifiedFrom: T0 + S,
            modifiedBefore: T0 + 4 * S,
            after: { modifiedAt: T0 + S, id: idFor(2) },
            limit: 1,
          }),
        );
        assert.deepEqual(ids(rows), idsOf(6));
      });

      test('returns at most limit rows, and pages via the cursor walk everything once', async () => {
        assert.deepEqual(
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(shop, { limit: 2 }))),
          idsOf(1, 2),
        );
        const walked: string[] = [];
        let page = await store.records.search(PURCHASE_ORDERS, poQuery(shop, { limit: 3 }));
        while (page.length > 0) {
          walked.push(...ids(page));
          const last = page.at(-1)!;
          page = await store.records.search(
            PURCHASE_ORDERS,
            poQuery(shop, { limit: 3, after: { modifiedAt: last.modifiedAt, id: last.id } }),
          );
        }
        assert.deepEqual(walked, idsOf(1, 2, 3, 4, 5, 6, 7));
      });

      test('sees only the requested location', async () => {
        const other = await importInto(store, { purchaseOrders: [purchaseOrder(1, T0 + 10 * S)] });
        assert.deepEqual(ids(await store.records.search(PURCHASE_ORDERS, poQuery(other))), idsOf(1));
        assert.deepEqual(await store.records.search(PURCHASE_ORDERS, poQuery(newLocationId())), []);
      });
    });

    describe('inventory search', () => {
      test('orders, filters by adjustment type (empty: any), bounds, cursor and limit', async () => {
        const search = async (query: Partial<InventorySearch>) =>
          ids(await store.records.search(INVENTORY_HISTORY, inventoryQuery(shop, query)));
        assert.deepEqual(await search({}), idsOf(1, 2, 3, 4, 5));
        assert.deepEqual(await search({ adjustmentTypes: ['RECEIVE'] }), idsOf(2, 5));
        assert.deepEqual(await search({ adjustmentTypes: ['COUNT', 'WASTED'] }), idsOf(1, 3, 4));
        assert.deepEqual(await search({ adjustmentTypes: ['THEFT'] }), []);
        assert.deepEqual(await search({ modifiedFrom: T0 + S, modifiedBefore: T0 + 2 * S }), idsOf(2, 3));
        assert.deepEqual(await search({ after: { modifiedAt: T0 + S, id: idFor(2) } }), idsOf(3, 4, 5));
        assert.deepEqual(
          await search({
            adjustmentTypes: ['RECEIVE', 'WASTED'],
            modifiedFrom: T0 + S,
            after: { modifiedAt: T0 + S, id: idFor(3) },
            limit: 1,
          }),
          idsOf(4),
        );
        const rows = await store.records.search(INVENTORY_HISTORY, inventoryQuery(shop, { limit: 1 }));
        assert.deepEqual(
          { ...rows[0], json: text(rows[0]?.json) },
          { modifiedAt: T0, id: idFor(1), json: ENTRIES[1]?.json },
        );
      });
    });

    describe('scan', () => {
      test('yields every record of the location in keyset order, in batches', async () => {
        const orders = await store.records.search(PURCHASE_ORDERS, poQuery(shop));
        const batches = await collect(store.records.scan(PURCHASE_ORDERS, shop, 3));
        assert.deepEqual(
          batches.map((batch) => batch.length),
          [3, 3, 1],
        );
        assert.deepEqual(
          batches.flat(),
          orders.map((row) => text(row.json)),
        );
        assert.deepEqual((await collect(store.records.scan(PURCHASE_ORDERS, shop))).flat(), batches.flat());
        const entries = await store.records.search(INVENTORY_HISTORY, inventoryQuery(shop));
        const entryBatches = await collect(store.records.scan(INVENTORY_HISTORY, shop, 5));
        assert.deepEqual(entryBatches, [entries.map((row) => text(row.json))]);
      });

      test('yields nothing for an empty or unknown location', async () => {
        const empty = newLocationId();
        await store.locations.upsert({ id: empty });
        assert.deepEqual(await collect(store.records.scan(PURCHASE_ORDERS, empty)), []);
        assert.deepEqual(await collect(store.records.scan(INVENTORY_HISTORY, newLocationId(), 2)), []);
      });
    });

    describe('span', () => {
      test('is the earliest and latest modifiedAt of a kind at a location, undefined when it holds none', async () => {
        assert.deepEqual(await store.records.span(PURCHASE_ORDERS, shop), { first: T0, last: T0 + 3 * S });
        assert.deepEqual(await store.records.span(INVENTORY_HISTORY, shop), { first: T0, last: T0 + 2 * S });
        const empty = newLocationId();
        await store.locations.upsert({ id: empty });
        assert.equal(await store.records.span(PURCHASE_ORDERS, empty), undefined);
        assert.equal(await store.records.span(INVENTORY_HISTORY, newLocationId()), undefined);
      });
    });

    describe('imports', () => {
      test('commit reports the rows written and creates the named location', async () => {
        const id = newLocationId();
        const session = await store.records.beginImport({ id, name: 'Harbour' });
        await session.put(PURCHASE_ORDERS, ORDERS.slice(0, 4));
        await session.put(PURCHASE_ORDERS, ORDERS.slice(4));
        await session.put(INVENTORY_HISTORY, ENTRIES);
        assert.deepEqual(await session.commit(), {
          purchaseOrders: ORDERS.length,
          inventoryHistory: ENTRIES.length,
        });
        assert.equal((await store.locations.get(id))?.name, 'Harbour');
        assert.equal((await peer.records.search(PURCHASE_ORDERS, poQuery(id))).length, ORDERS.length);
      });

      test('a record imported again replaces the earlier version, also within one batch', async () => {
        const location = await importInto(store, { purchaseOrders: ORDERS, inventory: ENTRIES });
        const moved = purchaseOrder(2, T0 + 9 * S, 'VOIDED', true);
        const twice = [purchaseOrder(3, T0 + 8 * S, 'DRAFT'), purchaseOrder(3, T0 + 7 * S, 'ORDERED')];
        const entry = inventoryEntry(1, T0 + 9 * S, 'THEFT');
        await importInto(store, { purchaseOrders: [moved, ...twice], inventory: [entry] }, location);

        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, moved.id)), moved.json);
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, idFor(3))), twice[1]?.json);
        assert.deepEqual(
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(location))),
          idsOf(1, 4, 5, 6, 7, 3, 2),
        );
        assert.deepEqual(
          ids(await store.records.search(PURCHASE_ORDERS, poQuery(location, { statuses: ['ORDERED'] }))),
          [idFor(5), idFor(3)],
        );
        assert.deepEqual(
          ids(await store.records.search(INVENTORY_HISTORY, inventoryQuery(location))),
          idsOf(2, 3, 4, 5, 1),
        );
        assert.deepEqual(
          ids(
            await store.records.search(
              INVENTORY_HISTORY,
              inventoryQuery(location, { adjustmentTypes: ['THEFT'] }),
            ),
          ),
          idsOf(1),
        );
        const summary = (await store.locations.list()).find((item) => item.id === location);
        assert.equal(summary?.purchaseOrders, ORDERS.length);
        assert.equal(summary?.inventoryEntries, ENTRIES.length);
      });

      test('a second import and other writes beside an open import wait their turn; reads go on', async () => {
        const first = newLocationId();
        const second = newLocationId();
        const third = newLocationId();
        const open = await store.records.beginImport({ id: first });
        await open.put(PURCHASE_ORDERS, ORDERS);
        const next = store.records.beginImport({ id: second });
        const upserted = store.locations.upsert({ id: third });
        // Neither blocks this process meanwhile: a read answers, and the event loop turns.
        assert.equal(await store.locations.get(first), undefined, 'not committed yet');
        await new Promise((resolve) => setImmediate(resolve));
        await open.commit();
        const session = await next;
        await session.put(INVENTORY_HISTORY, ENTRIES);
        await session.commit();
        await upserted;
        assert.equal((await store.records.search(PURCHASE_ORDERS, poQuery(first))).length, ORDERS.length);
        assert.equal(
          (await store.records.search(INVENTORY_HISTORY, inventoryQuery(second))).length,
          ENTRIES.length,
        );
        assert.notEqual(await store.locations.get(third), undefined);
      });

      test('rollback leaves nothing behind, not even a new location', async () => {
        const id = newLocationId();
        const session = await store.records.beginImport({ id });
        await session.put(PURCHASE_ORDERS, ORDERS);
        await session.put(INVENTORY_HISTORY, ENTRIES);
        await session.rollback();
        assert.equal(await store.locations.get(id), undefined);
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, id, idFor(1))), undefined);
        assert.deepEqual(await store.records.search(PURCHASE_ORDERS, poQuery(id)), []);
        assert.deepEqual(await store.records.search(INVENTORY_HISTORY, inventoryQuery(id)), []);
        assert.equal(
          (await store.locations.list()).find((item) => item.id === id),
          undefined,
        );
      });

      test('rollback keeps the previous versions of an existing location', async () => {
        const location = await importInto(store, { purchaseOrders: ORDERS });
        const session = await store.records.beginImport({ id: location, name: 'Renamed' });
        await session.put(PURCHASE_ORDERS, [purchaseOrder(1, T0 + 9 * S, 'VOIDED'), purchaseOrder(50, T0)]);
        await session.rollback();
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, idFor(1))), ORDERS[2]?.json);
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, idFor(50))), undefined);
        assert.equal((await store.locations.get(location))?.name, location);
      });

      test('readers, in this instance and others, see nothing of an import before it commits', async () => {
        const location = await importInto(store, { purchaseOrders: [purchaseOrder(1, T0)] });
        const session = await store.records.beginImport({ id: location });
        const updated = purchaseOrder(1, T0 + S, 'RECEIVED');
        await session.put(PURCHASE_ORDERS, [updated, purchaseOrder(2, T0)]);
        await session.put(INVENTORY_HISTORY, [inventoryEntry(1, T0)]);
        await nextTurn();
        for (const reader of [store, peer]) {
          assert.equal(
            text(await reader.records.get(PURCHASE_ORDERS, location, idFor(1))),
            purchaseOrder(1, T0).json,
          );
          assert.equal(text(await reader.records.get(PURCHASE_ORDERS, location, idFor(2))), undefined);
          assert.equal(text(await reader.records.get(INVENTORY_HISTORY, location, idFor(1))), undefined);
          assert.deepEqual(ids(await reader.records.search(PURCHASE_ORDERS, poQuery(location))), idsOf(1));
          assert.deepEqual((await collect(reader.records.scan(INVENTORY_HISTORY, location))).flat(), []);
        }
        await session.commit();
        const seesCommit = async (reader: Store) => {
          assert.equal(text(await reader.records.get(PURCHASE_ORDERS, location, idFor(1))), updated.json);
          assert.deepEqual(ids(await reader.records.search(PURCHASE_ORDERS, poQuery(location))), idsOf(2, 1));
          assert.equal((await reader.records.search(INVENTORY_HISTORY, inventoryQuery(location))).length, 1);
        };
        // The importing instance at once; another instance from its next event-loop turn at the latest.
        await seesCommit(store);
        await nextTurn();
        await seesCommit(peer);
      });
    });

    describe('settings', () => {
      test('get, set and overwrite', async () => {
        assert.equal(await store.settings.benchDataset.get(), undefined);
        await store.settings.benchDataset.set('one');
        assert.equal(await store.settings.benchDataset.get(), 'one');
        await store.settings.benchDataset.set('two');
        assert.equal(await peer.settings.benchDataset.get(), 'two');
      });

      test('ensure stores a value only when none exists and returns the stored one', async () => {
        assert.equal(await store.settings.pageTokenSecret.ensure('first'), 'first');
        assert.equal(await store.settings.pageTokenSecret.ensure('second'), 'first');
        assert.equal(await store.settings.pageTokenSecret.get(), 'first');
      });

      test('concurrent ensure calls across instances agree on one value', async () => {
        const candidates = Array.from({ length: 8 }, (_, i) => `value-${i}`);
        const results = await Promise.all(
          candidates.map((value, i) =>
            (i % 2 === 0 ? store : peer).settings.clientSecretHashKey.ensure(value),
          ),
        );
        const stored = await store.settings.clientSecretHashKey.get();
        assert.ok(stored !== undefined && candidates.includes(stored));
        assert.deepEqual(
          results,
          candidates.map(() => stored),
        );
      });

      test('concurrent updates across instances each apply to the value stored, none lost', async () => {
        const step = { offsetMs: 1000, frozenAtMs: null };
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? store : peer).settings.clock.update((current) => ({
              offsetMs: (current?.offsetMs ?? 0) + step.offsetMs,
              frozenAtMs: null,
            })),
          ),
        );
        assert.deepEqual(await peer.settings.clock.get(), { offsetMs: 8000, frozenAtMs: null });
        assert.deepEqual(
          results.map((result) => result.offsetMs).sort((a, b) => a - b),
          [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000],
        );
      });

      test('typed values round-trip: a number, and the demo client as one pair', async () => {
        assert.equal(await store.settings.maxTokenTtlSeconds.get(), undefined);
        await store.settings.maxTokenTtlSeconds.set(86_400);
        assert.equal(await peer.settings.maxTokenTtlSeconds.get(), 86_400);
        assert.equal(await store.settings.demoClient.get(), undefined);
        const demo = { clientId: 'demo-id', clientSecret: 'demo-secret' };
        await store.settings.demoClient.set(demo);
        assert.deepEqual(await peer.settings.demoClient.get(), demo);
      });
    });

    describe('values a backend cannot hold', () => {
      // SQLite stores any text; PostgreSQL refuses a NUL character, as STORE_INVALID_VALUE, and stays usable.
      test('a NUL character in a record body or a setting', async () => {
        const order = { ...purchaseOrder(1, T0), json: '{"note":"a\u0000b"}' };
        assert.ok(order.json.includes('\u0000'), 'the body holds a raw NUL');
        if (backend.name === 'postgres') {
          await rejectsWithStoreError(importInto(store, { purchaseOrders: [order] }), 'STORE_INVALID_VALUE');
          await rejectsWithStoreError(store.settings.benchDataset.set('a\u0000b'), 'STORE_INVALID_VALUE');
        } else {
          const location = await importInto(store, { purchaseOrders: [order] });
          assert.equal(text(await store.records.get(PURCHASE_ORDERS, location, order.id)), order.json);
        }
        assert.equal(text(await store.records.get(PURCHASE_ORDERS, shop, idFor(1))), ORDERS[2]?.json);
      });
    });

    describe('clients', () => {
      test('create, get and list', async () => {
        const first = client({ createdAt: '2024-03-02T00:00:00.000Z', scopes: ['retail:read', 'x'] });
        const second = client({ createdAt: '2024-03-01T00:00:00.000Z', allLocations: true, locations: [] });
        await store.auth.createClient(first);
        await store.auth.createClient(second);
        assert.deepEqual(await store.auth.getClient(first.clientId), first);
        assert.deepEqual(await peer.auth.getClient(second.clientId), second);
        assert.equal(await store.auth.getClient('client-unknown'), undefined);
        const listed = (await store.auth.listClients()).filter((item) =>
          [first.clientId, second.clientId].includes(item.clientId),
        );
        assert.deepEqual(listed, [second, first]);
      });

      test('a second client with the same id is refused', async () => {
        const record = client();
        await store.auth.createClient(record);
        const version = await store.auth.version();
        await rejectsWithStoreError(store.auth.createClient({ ...record, name: 'Other' }), 'STORE_DUPLICATE');
        await rejectsWithStoreError(peer.auth.createClient({ ...record, name: 'Other' }), 'STORE_DUPLICATE');
        assert.deepEqual(await store.auth.getClient(record.clientId), record);
        assert.equal(await store.auth.version(), version, 'a refused client leaves the auth version');
      });

      test('deleteClient removes a client for good and bumps the auth version; unknown ids are a no-op', async () => {
        const record = client();
        await store.auth.createClient(record);
        const version = await store.auth.version();
        assert.equal(await store.auth.deleteClient(record.clientId), true);
        assert.equal(await peer.auth.getClient(record.clientId), undefined);
        const after = await store.auth.version();
        assert.notEqual(after, version);
        assert.equal(await store.auth.deleteClient(record.clientId), false);
        assert.equal(await store.auth.version(), after);
      });

      test('updateClient changes only the given fields; revokedAt null clears a revocation', async () => {
        const record = client();
        await store.auth.createClient(record);
        const scoped = await store.auth.updateClient(record.clientId, { scopes: ['retail:read'] });
        assert.deepEqual(scoped, { ...record, scopes: ['retail:read'] });
        const granted = await store.auth.updateClient(record.clientId, {
          allLocations: true,
          locations: ['loc-z'],
        });
        assert.deepEqual(granted, {
          ...record,
          scopes: ['retail:read'],
          allLocations: true,
          locations: ['loc-z'],
        });
        const revokedAt = '2024-04-01T00:00:00.000Z';
        assert.equal((await store.auth.updateClient(record.clientId, { revokedAt }))?.revokedAt, revokedAt);
        assert.equal((await peer.auth.getClient(record.clientId))?.revokedAt, revokedAt);
        const restored = await store.auth.updateClient(record.clientId, { revokedAt: null });
        assert.deepEqual(restored, granted);
        assert.deepEqual(await store.auth.getClient(record.clientId), granted);
        assert.equal(await store.auth.updateClient('client-unknown', { scopes: [] }), undefined);
      });
    });

    describe('signing keys and auth version', () => {
      test('rotateSigningKey retires the active key atomically; deleteSigningKey removes one', async () => {
        const first = signingKey('2024-03-01T00:00:00.000Z');
        const second = signingKey('2024-03-02T00:00:00.000Z');
        await store.auth.rotateSigningKey(first);
        assert.deepEqual(await store.auth.listSigningKeys(), [first]);
        await store.auth.rotateSigningKey(second);
        assert.deepEqual(await peer.auth.listSigningKeys(), [
          { ...first, retiredAt: second.createdAt },
          second,
        ]);

        const racing = [signingKey('2024-03-03T00:00:00.000Z'), signingKey('2024-03-03T00:00:00.000Z')];
        await Promise.all([store.auth.rotateSigningKey(racing[0]!), peer.auth.rotateSigningKey(racing[1]!)]);
        const keys = await store.auth.listSigningKeys();
        assert.equal(keys.length, 4);
        assert.equal(keys.filter((key) => key.retiredAt === null).length, 1, 'exactly one active key');

        await store.auth.deleteSigningKey(first.kid);
        assert.deepEqual(
          (await store.auth.listSigningKeys()).map((key) => key.kid),
          keys.filter((key) => key.kid !== first.kid).map((key) => key.kid),
        );
      });

      test('authVersion changes with every client or key change, for every instance', async () => {
        const seen = [await store.auth.version()];
        const changed = async (what: string) => {
          const now = await store.auth.version();
          assert.equal(typeof now, 'number');
          assert.ok(!seen.includes(now), `authVersion unchanged after ${what}`);
          assert.equal(await peer.auth.version(), now);
          seen.push(now);
        };
        const record = client();
        await store.auth.createClient(record);
        await changed('createClient');
        await peer.auth.updateClient(record.clientId, { revokedAt: '2024-05-01T00:00:00.000Z' });
        await changed('updateClient');
        const key = signingKey('2024-06-01T00:00:00.000Z');
        await store.auth.rotateSigningKey(key);
        await changed('rotateSigningKey');
        await store.auth.deleteSigningKey(key.kid);
        await changed('deleteSigningKey');
      });

      test('deleting an unknown signing key is a no-op that leaves the auth version', async () => {
        const before = await store.auth.version();
        await store.auth.deleteSigningKey('kid-unknown');
        assert.equal(await store.auth.version(), before);
        assert.equal(await peer.auth.version(), before);
      });
    });
  });
}
