import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { formatProblem, importFiles } from '../src/import/import-files.js';
import type { PurchaseOrder } from '../src/records/schemas.js';
import { createLocationGenerator } from '../src/seed/generate-location.js';
import type { Store } from '../src/storage/store.js';
import { benchGenerateOptions } from './dataset.js';

/**
 * The bench's second dataset: the demo generator's records with every free-text field rewritten in non-ASCII
 * letters, as real suppliers' and items' names are. Latin-1 accents (á, ü, ø: one byte a character in V8 but two in
 * UTF-8) and letters past Latin-1 (š, ł, ő: two-byte V8 strings) both appear, so neither of V8's string
 * representations is flattered. Ids, dates, enum values and numbers are kept, so every record stays valid.
 */

const LETTERS: Record<string, string> = {
  a: 'á',
  e: 'ë',
  i: 'ï',
  o: 'ø',
  u: 'ü',
  c: 'ç',
  n: 'ñ',
  s: 'š',
  z: 'ž',
  l: 'ł',
  A: 'Å',
  E: 'É',
  O: 'Ő',
  U: 'Ü',
  S: 'Š',
};

/** Ids, dates and date-times, enum values and codes (`RECEIVED`, `US`): structure, not text. */
const STRUCTURED =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\d{4}-\d{2}-\d{2}(?:T[\d:.]+Z)?|[A-Z][A-Z0-9_]*)$/;

/** Every letter that has an accented twin gets it; strings that carry structure are kept. */
export const accented = (text: string): string =>
  STRUCTURED.test(text) ? text : text.replace(/[a-zA-Z]/g, (letter) => LETTERS[letter] ?? letter);

/** A deep copy of a record with every free-text string accented. */
export const accentRecord = <T>(value: T): T => {
  if (typeof value === 'string') return accented(value) as T;
  if (Array.isArray(value)) return value.map(accentRecord) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, accentRecord(field)])) as T;
  return value;
};

/** Orders are cut to at most this many bytes (lines dropped from the end), so they weigh 2–3 KB as real ones do. */
export const MAX_ORDER_BYTES = 3072;

/** An order accented, with trailing lines dropped until its JSON is at most MAX_ORDER_BYTES. */
export const unicodeOrder = (order: PurchaseOrder): PurchaseOrder => {
  const accentedOrder = accentRecord(order);
  while (Buffer.byteLength(JSON.stringify(accentedOrder)) > MAX_ORDER_BYTES && accentedOrder.items.length > 1)
    accentedOrder.items.pop();
  return accentedOrder;
};

/** The location the non-ASCII dataset is imported into, next to the demo one in the same store. */
export const UNICODE_LOCATION = 'loc-bench-unicode';

/**
 * Writes the non-ASCII dataset as NDJSON, one file per kind: the demo generator's records of 20 weeks (20,000
 * orders at scale 1, with their inventory entries), accented and cut as above. Returns the files and how many
 * orders they hold.
 */
export const writeUnicodeFiles = async (
  scale: number,
  dir: string,
): Promise<{ purchaseOrders: string; inventoryHistory: string; orderCount: number }> => {
  const files = {
    purchaseOrders: join(dir, 'unicode-po.ndjson'),
    inventoryHistory: join(dir, 'unicode-ih.ndjson'),
  };
  const outputs = {
    purchaseOrders: createWriteStream(files.purchaseOrders),
    inventoryHistory: createWriteStream(files.inventoryHistory),
  };
  const write = async (kind: keyof typeof outputs, lines: string[]) => {
    if (lines.length > 0 && !outputs[kind].write(`${lines.join('\n')}\n`)) await once(outputs[kind], 'drain');
  };
  const generator = createLocationGenerator({ ...benchGenerateOptions(scale), days: 140, locationIndex: 1 });
  let orderCount = 0;
  for (const batch of generator.batches()) {
    const orders = batch.purchaseOrders.map((order) => JSON.stringify(unicodeOrder(order)));
    orderCount += orders.length;
    await write('purchaseOrders', orders);
    await write(
      'inventoryHistory',
      batch.inventoryHistory.map((entry) => JSON.stringify(accentRecord(entry))),
    );
  }
  for (const output of Object.values(outputs)) {
    output.end();
    await once(output, 'finish');
  }
  return { ...files, orderCount };
};

/**
 * Imports the non-ASCII dataset into the bench store unless it is there already (an import is all or nothing, so
 * the location existing means it is complete).
 */
export const ensureUnicodeLocation = async (
  store: Store,
  scale: number,
  scratch: string,
  log: (line: string) => void,
): Promise<void> => {
  if ((await store.locations.get(UNICODE_LOCATION)) !== undefined) return;
  log('importing the non-ASCII dataset …');
  const files = await writeUnicodeFiles(scale, scratch);
  const result = await importFiles(store, {
    locationId: UNICODE_LOCATION,
    locationName: accented('Bench non-ASCII kitchen'),
    purchaseOrders: { path: files.purchaseOrders },
    inventoryHistory: { path: files.inventoryHistory },
  });
  if (!result.committed)
    throw new Error(
      `the non-ASCII dataset did not import: ${result.problems.slice(0, 3).map(formatProblem).join('; ')}`,
    );
};
