import { importFiles } from '../dist/import/import-files.js';
import { seedStore } from '../dist/seed/seed-store.js';
import { openSpecStore } from './open-spec.mjs';

/**
 * One timed import or seed, alone in a fresh process running compiled dist/, as `larder import` and `larder seed`
 * run: in the bench process it would share a heap (and its collections) with the load generator's minutes of
 * histograms. The job comes in LARDER_BENCH_JOB; the timings go to stdout as one JSON line.
 *
 *   { "job": "import", "store": StoreSpec, "files": { "purchaseOrders": path, "inventoryEntries": path } }
 *     → { "purchaseOrders": { "count", "ms" }, "inventoryEntries": { "count", "ms" } }
 *   { "job": "seed", "store": StoreSpec, "generate": GenerateOptions } → { "records", "ms" }
 */
const job = JSON.parse(process.env.LARDER_BENCH_JOB ?? '');
const store = await openSpecStore(job.store, { migrate: true });

const runImports = async () => {
  const timings = {};
  for (const kind of ['purchaseOrders', 'inventoryEntries']) {
    const started = performance.now();
    const result = await importFiles(store, {
      locationId: 'bench-import',
      exclusive: true,
      ...(kind === 'purchaseOrders'
        ? { purchaseOrders: { path: job.files.purchaseOrders } }
        : { inventoryHistory: { path: job.files.inventoryEntries } }),
    });
    const ms = performance.now() - started;
    if (!result.committed) throw new Error(`bench import failed: ${JSON.stringify(result.problems[0])}`);
    timings[kind] = { count: result.counts[kind], ms };
  }
  return timings;
};

const runSeed = async () => {
  const result = await seedStore(store, { ...job.generate, locations: 1, exclusive: true });
  return {
    records: result.locations.reduce((sum, l) => sum + l.purchaseOrders + l.inventoryEntries, 0),
    ms: result.ms,
  };
};

try {
  process.stdout.write(`${JSON.stringify(job.job === 'import' ? await runImports() : await runSeed())}\n`);
} finally {
  await store.close();
}
