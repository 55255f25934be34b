import { createLocationGenerator } from '../seed/generate-location.js';

/**
 * Example records from the demo generator, for docs/api.md and the OpenAPI document. The seed and location
 * index are the demo database's first location's, so the example location id is one a demo server really has
 * (and /docs prefills it in try-it).
 */
const EXAMPLE_OPTIONS = { seed: 42, locationIndex: 0, days: 14, endDate: '2025-06-30', batchSize: 100_000 };

export interface DemoExamples {
  location: string;
  order: unknown;
  entry: unknown;
}

let cached: DemoExamples | undefined;

/** Generated once per process (a few milliseconds): the document is built at every app start. */
export const demoExamples = (): DemoExamples => {
  if (cached !== undefined) return cached;
  const generator = createLocationGenerator(EXAMPLE_OPTIONS);
  const [batch] = generator.batches();
  const order = batch?.purchaseOrders.find((o) => o.status === 'RECEIVED' && o.items.length <= 2);
  const entry = batch?.inventoryHistory.find((e) => e.adjustmentType === 'RECEIVE');
  cached = { location: generator.id, order, entry };
  return cached;
};
