import { type FieldCounts, RECORD_KINDS, toFieldCounts } from '../records/kinds.js';
import type { ImportCounts, ImportSessionOptions, Store } from '../storage/store.js';
import { type LocationIdentity, locationIdentity } from './location-profile.js';
import { type GenerateOptions, resolveGenerateOptions, SEED_DEFAULTS } from './options.js';
import { type RowBatch, workerRowBatches } from './row-batches.js';

export interface SeedOptions extends Partial<Omit<GenerateOptions, 'locationIndex'>> {
  /** Number of locations (indexes 0 … locations − 1 of the seed). Default 3. */
  locations?: number;
  /** Nothing else uses the store meanwhile: SQLite may write without its WAL (see ImportSessionOptions). */
  exclusive?: boolean;
  /** Called after each location is committed (for progress output). */
  onLocation?: (result: SeededLocation) => void;
}

/** A seeded location with its record counts (each kind's countField). */
export interface SeededLocation extends FieldCounts {
  id: string;
  name: string;
  /** Wall time of generating and writing this location. */
  ms: number;
}

export interface SeedResult {
  locations: SeededLocation[];
  /** The resolved options every location was generated with (endDate filled in). */
  options: Omit<GenerateOptions, 'locationIndex'>;
  ms: number;
}

/**
 * Writes one location's rows as one import session: committed once complete, rolled back on any failure of the
 * store or of the batch source (the generating worker), leaving nothing of the location behind.
 */
export const importLocation = async (
  store: Store,
  location: LocationIdentity,
  batches: AsyncIterable<RowBatch>,
  sessionOptions: ImportSessionOptions = {},
): Promise<ImportCounts> => {
  const session = await store.records.beginImport(location, sessionOptions);
  try {
    for await (const batch of batches) {
      for (const kind of RECORD_KINDS) {
        const rows = batch[kind.name];
        if (rows.length > 0) await session.put(kind, rows);
      }
    }
    return await session.commit();
  } catch (error) {
    await session.rollback();
    throw error;
  }
};

/**
 * Generates `locations` locations into the store. Each location is one import session, committed once it is
 * complete: a failure rolls that location back and leaves none of it behind (locations committed before stay).
 * Generation and serialisation run in a worker thread while this thread writes, so the two halves overlap.
 */
export const seedStore = async (store: Store, options: SeedOptions = {}): Promise<SeedResult> => {
  const count = options.locations ?? SEED_DEFAULTS.locations;
  if (!Number.isInteger(count) || count < 1 || count > 1000) {
    throw new RangeError(`locations must be an integer from 1 to 1000, got ${count}`);
  }
  const { locations: _count, onLocation, exclusive = false, ...generate } = options;
  const { locationIndex: _index, ...resolved } = resolveGenerateOptions(generate);
  const started = performance.now();
  const results: SeededLocation[] = [];
  for (let locationIndex = 0; locationIndex < count; locationIndex++) {
    const locationStarted = performance.now();
    const location = locationIdentity(resolved.seed, locationIndex);
    const counts = await importLocation(store, location, workerRowBatches({ ...resolved, locationIndex }), {
      exclusive,
    });
    const result = {
      ...location,
      ...toFieldCounts(counts),
      ms: Math.round(performance.now() - locationStarted),
    };
    results.push(result);
    onLocation?.(result);
  }
  return { locations: results, options: resolved, ms: Math.round(performance.now() - started) };
};
