import type { InventoryRecord, PurchaseOrderRecord } from '../storage/store.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from './schemas.js';

/**
 * A validated record becomes the row that stores it: the JSON it is served as, serialised once here, plus the
 * columns that index it. Ids are kept lower-case in the key so lookups ignore UUID letter case.
 */
export const toPurchaseOrderRecord = (order: PurchaseOrder): PurchaseOrderRecord => ({
  id: order.id.toLowerCase(),
  modifiedAt: Date.parse(order.modifiedDate),
  status: order.status,
  archived: order.archived,
  json: JSON.stringify(order),
});

export const toInventoryRecord = (entry: InventoryHistoryLogEntry): InventoryRecord => ({
  id: entry.inventoryHistoryLogId.toLowerCase(),
  modifiedAt: Date.parse(entry.modifiedDate),
  adjustmentType: entry.adjustmentType,
  json: JSON.stringify(entry),
});
