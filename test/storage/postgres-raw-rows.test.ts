import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { Parser } from 'pg-protocol/dist/parser.js';
import { INVENTORY_HISTORY, PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { createPostgresStore } from '../../src/storage/postgres/postgres-store.js';
import { assertRawRowHooks } from '../../src/storage/postgres/raw-rows.js';
import type { Store } from '../../src/storage/store.js';
import { adminQuery, freshSchemaName, postgresUnreachable, postgresUrl } from './backends.js';
import {
  importInto,
  inventoryEntry,
  inventorySearch,
  purchaseOrder,
  purchaseOrderSearch,
  T0,
  text,
} from './records.js';

/**
 * raw-rows.ts overrides private internals of pg and pg-protocol so record bodies reach the response as the bytes
 * PostgreSQL sent. These tests notice when an upgrade takes that away, silently (bodies decoded again) or loudly.
 */

const isBytes = (value: unknown): boolean => value instanceof Uint8Array;

describe('raw-rows hooks', () => {
  test('pg uses the one pg-protocol installed, the one raw-rows.ts patches (package.json overrides)', () => {
    const require = createRequire(import.meta.url);
    const fromPg = createRequire(require.resolve('pg')).resolve('pg-protocol');
    assert.equal(fromPg, require.resolve('pg-protocol'));
  });

  test('the installed pg and pg-protocol have every hook raw-rows.ts replaces', () => {
    assert.doesNotThrow(() => assertRawRowHooks());
  });

  test('a missing hook is a loud, clear error naming it', () => {
    const parser = { parse: () => {}, handlePacket: () => {} };
    const connection = { attachListeners: () => {} };
    const client = { _getActiveQuery: () => undefined };
    const DataRow = class {};
    assert.throws(
      () => assertRawRowHooks({ parser: { parse: () => {} }, connection, client, dataRowMessage: DataRow }),
      /cannot read record bodies as bytes.*Parser\.prototype\.handlePacket/,
    );
    assert.throws(
      () => assertRawRowHooks({ parser, connection: {}, client, dataRowMessage: DataRow }),
      /Connection\.prototype\.attachListeners/,
    );
    assert.throws(
      () => assertRawRowHooks({ parser, connection, client: {}, dataRowMessage: DataRow }),
      /Client\.prototype\._getActiveQuery/,
    );
    assert.throws(
      () => assertRawRowHooks({ parser, connection, client, dataRowMessage: undefined }),
      /DataRowMessage/,
    );
  });

  test('a PostgreSQL store refuses to start when pg-protocol lost Parser.handlePacket', async () => {
    const prototype = Parser.prototype as unknown as Record<string, unknown>;
    const original = prototype['handlePacket'];
    delete prototype['handlePacket'];
    try {
      await assert.rejects(
        createPostgresStore({ databaseUrl: postgresUrl, schema: freshSchemaName() }),
        /pg-protocol Parser\.prototype\.handlePacket/,
      );
    } finally {
      prototype['handlePacket'] = original;
    }
  });

  test('a PostgreSQL store refuses to start when pg lost Connection.attachListeners', async () => {
    const prototype = (pg as unknown as { Connection: { prototype: Record<string, unknown> } }).Connection
      .prototype;
    const original = prototype['attachListeners'];
    delete prototype['attachListeners'];
    try {
      await assert.rejects(
        createPostgresStore({ databaseUrl: postgresUrl, schema: freshSchemaName() }),
        /pg Connection\.prototype\.attachListeners/,
      );
    } finally {
      prototype['attachListeners'] = original;
    }
  });
});

const unreachable = await postgresUnreachable();

describe('PostgreSQL record bodies', { skip: unreachable }, () => {
  const schema = freshSchemaName();
  let store: Store;

  before(async () => {
    store = await createPostgresStore({ databaseUrl: postgresUrl, schema, migrate: true });
  });

  after(async () => {
    await store?.close();
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  test('arrive as bytes from records.get and records.search', async () => {
    const order = purchaseOrder(1, T0);
    const entry = inventoryEntry(1, T0);
    const location = await importInto(store, { purchaseOrders: [order], inventory: [entry] });
    const got = await store.records.get(PURCHASE_ORDERS, location, order.id);
    assert.ok(isBytes(got), `records.get gave ${typeof got}`);
    assert.equal(Buffer.from(got as Uint8Array).toString('utf8'), order.json);
    const gotEntry = await store.records.get(INVENTORY_HISTORY, location, entry.id);
    assert.ok(isBytes(gotEntry), `records.get gave ${typeof gotEntry}`);
    const [row] = await store.records.search(PURCHASE_ORDERS, purchaseOrderSearch({ locationId: location }));
    assert.ok(isBytes(row?.json), `records.search gave ${typeof row?.json}`);
    assert.equal(typeof row?.id, 'string');
    assert.equal(typeof row?.modifiedAt, 'number');
    const [entryRow] = await store.records.search(
      INVENTORY_HISTORY,
      inventorySearch({ locationId: location }),
    );
    assert.ok(isBytes(entryRow?.json), `records.search gave ${typeof entryRow?.json}`);
  });

  test('a page is read into one buffer with room for the envelope, whatever its records weigh', async () => {
    // Bodies from 60 bytes to 40 KB, accented: the page's buffer starts from earlier pages' sizes and grows.
    const weight = (n: number) => (n % 7 === 3 ? 40_000 : n % 3 === 0 ? 2_000 : 0);
    const orders = Array.from({ length: 30 }, (_, n) => {
      const order = purchaseOrder(n, T0 + n);
      const object = JSON.parse(order.json) as Record<string, unknown>;
      return {
        ...order,
        json: JSON.stringify({ ...object, note: 'Mëtrø Føødšërvïçë ✓'.repeat(weight(n) / 20) }),
      };
    });
    const location = await importInto(store, { purchaseOrders: orders });
    for (const limit of [1, 2, 7, 29, 30, 31, 3, 1]) {
      for (const from of [0, 5]) {
        const after =
          from === 0 ? {} : { after: { modifiedAt: orders[from - 1]!.modifiedAt, id: orders[from - 1]!.id } };
        const page = await store.records.page(
          PURCHASE_ORDERS,
          purchaseOrderSearch({ locationId: location, limit, ...after }),
        );
        const expected = orders.slice(from, from + limit);
        assert.equal(page.count, expected.length);
        assert.equal(page.more, from + limit < orders.length);
        assert.deepEqual(page.last, { modifiedAt: expected.at(-1)!.modifiedAt, id: expected.at(-1)!.id });
        assert.equal(page.chunks.length, 1);
        assert.equal(text(page.chunks[0]), expected.map((order) => order.json).join(','));
        const chunk = page.chunks[0] as Uint8Array;
        assert.ok(page.room !== undefined && page.room.before >= 512 && page.room.after >= 2);
        assert.ok(chunk.byteOffset >= page.room.before);
        assert.ok(chunk.byteOffset + chunk.byteLength + page.room.after <= chunk.buffer.byteLength);
      }
    }
    const none = await store.records.page(
      PURCHASE_ORDERS,
      purchaseOrderSearch({ locationId: location, modifiedFrom: T0 + 1000 }),
    );
    assert.deepEqual(none, { chunks: [], count: 0, last: undefined, more: false });
  });
});
