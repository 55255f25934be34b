import { open } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { createSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { importInto, purchaseOrder, T0 } from './records.js';

/** A SQLite store file at `path` with 200 purchase orders in one location (returned), closed again. */
export const fileWithOrders = async (path: string): Promise<string> => {
  const writer = await createSqliteStore({ path });
  try {
    return await importInto(writer, {
      purchaseOrders: Array.from({ length: 200 }, (_, n) => purchaseOrder(n, T0 + n)),
    });
  } finally {
    await writer.close();
  }
};

/**
 * Garbage over `table`'s root page in the SQLite file at `path`: what a disk error or a stray write leaves. Every
 * read of the table then fails with SQLITE_CORRUPT, while reads of other tables go on working.
 */
export const damageTable = async (path: string, table: string): Promise<void> => {
  const raw = new Database(path, { readonly: true });
  const { rootpage, pageSize } = raw
    .prepare(
      'SELECT rootpage, (SELECT page_size FROM pragma_page_size) AS pageSize FROM sqlite_master WHERE name = ?',
    )
    .get(table) as { rootpage: number; pageSize: number };
  raw.close();
  const file = await open(path, 'r+');
  await file.write(Buffer.alloc(pageSize, 0x5a), 0, pageSize, (rootpage - 1) * pageSize);
  await file.close();
};
