import { toInventoryRecord, toPurchaseOrderRecord } from '../retail/records.js';
import type { Store } from '../storage/store.js';
import { createLocationGenerator } from './generate-location.js';
import { type GenerateOptions, resolveGenerateOptions, SEED_DEFAULTS } from './options.js';

export interface SeedOptions extends Partial<Omit<GenerateOptions, 'locationIndex'>> {
  /** Number of locations (indexes 0 … locations − 1 of the seed). Default 3. */
  locations?: number;
  /** Called after each location is committed (for progress output). */
  onLocation?: (result: SeededLocation) => void;
}

export interface SeededLocation {
  id: string;
  name: string;
  purchaseOrders: number;
  inventoryEntries: number;
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
 * Generates `locations` locations into the store. Each location is one import session, committed once it is
 * complete: a failure rolls that location back and leaves none of it behind (locations committed before stay).
 */
export const seedStore = async (store: Store, options: SeedOptions = {}): Promise<SeedResult> => {
  const count = options.locations ?? SEED_DEFAULTS.locations;
  if (!Number.isInteger(count) || count < 1 || count > 1000) {
    throw new RangeError(`locations must be an integer from 1 to 1000, got ${count}`);
  }
  const { locations: _count, onLocation, ...generate } = options;
  const { locationIndex: _index, ...resolved } = resolveGenerateOptions(generate);
  const started = performance.now();
  const results: SeededLocation[] = [];
  for (let locationIndex = 0; locationIndex < count; locationIndex++) {
    const locationStarted = performance.now();
    const generator = createLocationGenerator({ ...resolved, locationIndex });
    const session = await store.beginImport({ id: generator.id, name: generator.name });
    try {
      for (const batch of generator.batches()) {
        if (batch.purchaseOrders.length > 0) {
          await session.putPurchaseOrders(batch.purchaseOrders.map(toPurchaseOrderRecord));
        }
        if (batch.inventory.length > 0)
          await session.putInventoryEntries(batch.inventory.map(toInventoryRecord));
      }
      const counts = await session.commit();
      const result = {
        id: generator.id,
        name: generator.name,
        ...counts,
        ms: Math.round(performance.now() - locationStarted),
      };
      results.push(result);
      onLocation?.(result);
    } catch (error) {
      await session.rollback();
      throw error;
    }
  }
  return { locations: results, options: resolved, ms: Math.round(performance.now() - started) };
};
