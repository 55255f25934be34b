import type { InventoryHistoryLogEntry, PurchaseOrder } from '../../src/records/schemas.js';
import { createLocationGenerator } from '../../src/seed/generate-location.js';
import type { GenerateOptions } from '../../src/seed/options.js';

export interface CollectedLocation {
  id: string;
  name: string;
  orders: PurchaseOrder[];
  entries: InventoryHistoryLogEntry[];
  batches: number;
}

/** A fixed end date keeps tests independent of the day they run. */
export const TEST_END_DATE = '2025-06-30';

/** Generates a whole (small) location into memory. */
export const collectLocation = (options: Partial<GenerateOptions> = {}): CollectedLocation => {
  const generator = createLocationGenerator({ endDate: TEST_END_DATE, ...options });
  const orders: PurchaseOrder[] = [];
  const entries: InventoryHistoryLogEntry[] = [];
  let batches = 0;
  for (const batch of generator.batches()) {
    batches += 1;
    orders.push(...batch.purchaseOrders);
    entries.push(...batch.inventoryHistory);
  }
  return { id: generator.id, name: generator.name, orders, entries, batches };
};
