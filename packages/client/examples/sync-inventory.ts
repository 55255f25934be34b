/**
 * An integration as an integrator writes it: keep a local copy of one location's inventory history, syncing
 * incrementally. Run it again and it fetches only what changed since the watermark it saved.
 *
 *   LARDER_URL=http://127.0.0.1:8080 LARDER_CLIENT_ID=… LARDER_CLIENT_SECRET=… LARDER_LOCATION=… \
 *     node --import tsx packages/client/examples/sync-inventory.ts ./inventory-copy.json
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { createClient, type InventoryHistoryLogEntry, LarderApiError, type Watermark } from '@larder/client';

interface LocalCopy {
  watermark?: Watermark;
  entries: Record<string, InventoryHistoryLogEntry>;
}

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Set ${name}.`);
  return value;
};

const file = process.argv[2] ?? 'inventory-copy.json';
const copy: LocalCopy = await readFile(file, 'utf8').then(
  (text) => JSON.parse(text) as LocalCopy,
  () => ({ entries: {} }),
);

const client = createClient({
  baseUrl: required('LARDER_URL'),
  clientId: required('LARDER_CLIENT_ID'),
  clientSecret: required('LARDER_CLIENT_SECRET'),
});

const run = client.inventoryHistory.sync({
  location: required('LARDER_LOCATION'),
  ...(copy.watermark === undefined ? {} : { since: copy.watermark }),
});
let changed = 0;
try {
  // Each entry arrives once per version; a newer version replaces the one kept.
  for await (const entry of run) {
    copy.entries[entry.inventoryHistoryLogId] = entry;
    changed++;
  }
  console.log(
    `${changed} changed, ${Object.keys(copy.entries).length} kept, next sync from ${run.watermark?.day}`,
  );
} catch (error) {
  if (error instanceof LarderApiError) {
    console.error(`Larder said: ${error.message}; code ${error.code}, request ${error.requestId}`);
    process.exitCode = 1;
  } else throw error;
} finally {
  // Saved however the walk ended, with the data it covers, atomically (write, then rename): after a failure the
  // watermark covers exactly the entries kept, so the next run resumes where this one stopped.
  if (run.watermark !== undefined) {
    copy.watermark = run.watermark;
    await writeFile(`${file}.tmp`, JSON.stringify(copy));
    await rename(`${file}.tmp`, file);
  }
}
