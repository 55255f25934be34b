import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PURCHASE_ORDERS } from '../../src/records/kinds.js';
import { openStore } from '../../src/storage/open-store.js';
import { idFor, importInto, purchaseOrder, T0 } from './records.js';

/** Bytes this process has read through read(2) and pread(2), from files and sockets alike (Linux). */
const bytesRead = (): number => Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

const ORDERS = 3000;
let dir: string;
let db: string;
let location: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'larder-page-cache-'));
  db = join(dir, 'larder.db');
  const store = await openStore({ db });
  // About 12 MB of records: far more than a 1 MiB cache holds, far less than a 64 MiB one.
  const orders = Array.from({ length: ORDERS }, (_, n) => {
    const row = purchaseOrder(n, T0 + n);
    return { ...row, json: JSON.stringify({ ...JSON.parse(row.json), note: 'x'.repeat(4000) }) };
  });
  location = await importInto(store, { purchaseOrders: orders });
  await store.close();
});
after(() => rm(dir, { recursive: true, force: true }));

/** The bytes a second pass of GETs over every order reads from the OS, with the page cache `--sqlite-cache-mb` sets. */
const rereadWith = async (sqliteCacheMb: number): Promise<number> => {
  const store = await openStore({ db, sqliteCacheMb });
  try {
    const pass = async () => {
      for (let n = 0; n < ORDERS; n++)
        assert.ok(await store.records.get(PURCHASE_ORDERS, location, idFor(n)), `order ${n}`);
    };
    await pass();
    const start = bytesRead();
    await pass();
    return bytesRead() - start;
  } finally {
    await store.close();
  }
};

test('--sqlite-cache-mb sizes the page cache retail reads keep their pages in: too small, each pass re-reads the file', async () => {
  const small = await rereadWith(1);
  const large = await rereadWith(64);
  assert.ok(small > 8 * 2 ** 20, `1 MiB cache: ${small} bytes re-read`);
  assert.ok(large < 2 ** 20, `64 MiB cache: ${large} bytes re-read`);
});
