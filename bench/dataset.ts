import { createLocationGenerator } from '../src/seed/generate-location.js';
import type { GenerateOptions } from '../src/seed/options.js';

/**
 * The bench's records come from the demo generator (src/seed): realistic orders (~3.5 KB) and inventory entries
 * (~0.5 KB). At scale 1 one location holds about 100,000 purchase orders and 1,000,000 inventory entries: 100
 * weeks of 1,000 orders a week, and a weekly count of 5,000 items on top of the receipts.
 */

/** Bump when the recipe changes, so cached stores are rebuilt (3: the live-demo generator's prefix-stable output; 4: schema version 2 and the non-ASCII location beside the demo one, in stores of their own). */
export const DATASET_VERSION = 4;
export const HISTORY_END = '2025-06-30';

export const benchGenerateOptions = (scale: number): Partial<GenerateOptions> => ({
  seed: 42,
  locationIndex: 0,
  days: 700,
  ordersPerWeek: Math.max(1, Math.round(1000 * scale)),
  items: Math.max(5, Math.round(5000 * scale)),
  endDate: HISTORY_END,
});

/** Ten weeks of the same location's business: what the import and seed throughput rows write. */
export const importGenerateOptions = (scale: number): Partial<GenerateOptions> => ({
  ...benchGenerateOptions(scale),
  days: 70,
  ordersPerWeek: Math.max(10, Math.round(2000 * scale)),
});

export const BENCH_LOCATION = createLocationGenerator(benchGenerateOptions(1)).id;

export const datasetKey = (scale: number): string =>
  `v${DATASET_VERSION}_s${String(scale).replace(/[^0-9]/g, '_')}`;
