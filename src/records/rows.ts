import type { IndexedColumn } from './filters.js';
import type { InventoryHistoryLogEntry, PurchaseOrder } from './schemas.js';

/**
 * The storage half of each record kind: its table, indexed columns and the row a record becomes. Kept apart from
 * the descriptors in kinds.ts, which add the schemas and search filters, so the seed worker can turn generated
 * records into rows without loading TypeBox and Ajv (~200 ms per worker start). Type-only imports above.
 */

/**
 * A validated record as the row that stores it: the JSON it is served as, serialised once, plus the columns that
 * index it (`values`, in the kind's `columns` order). Ids are kept lower-case so lookups ignore UUID letter case.
 */
export interface RecordRow {
  id: string;
  /** `modifiedDate` as epoch milliseconds (UTC). */
  modifiedAt: number;
  values: readonly (string | boolean)[];
  json: string;
}

export interface RowKind<R = unknown> {
  /** API path segment (/v1/<name>/…) and the key of per-kind counts. */
  readonly name: 'purchaseOrders' | 'inventoryHistory';
  /** Table name, the same on both backends. */
  readonly table: string;
  /** Indexed columns besides location_id, id and modified_at. */
  readonly columns: readonly IndexedColumn[];
  toRow(record: R): RecordRow;
}

export const PURCHASE_ORDER_ROWS: RowKind<PurchaseOrder> = {
  name: 'purchaseOrders',
  table: 'purchase_orders',
  columns: [
    { name: 'status', type: 'text' },
    { name: 'archived', type: 'boolean' },
  ],
  toRow: (order) => ({
    id: order.id.toLowerCase(),
    modifiedAt: Date.parse(order.modifiedDate),
    values: [order.status, order.archived],
    json: JSON.stringify(order),
  }),
};

export const INVENTORY_HISTORY_ROWS: RowKind<InventoryHistoryLogEntry> = {
  name: 'inventoryHistory',
  table: 'inventory_entries',
  columns: [{ name: 'adjustment_type', type: 'text' }],
  toRow: (entry) => ({
    id: entry.inventoryHistoryLogId.toLowerCase(),
    modifiedAt: Date.parse(entry.modifiedDate),
    values: [entry.adjustmentType],
    json: JSON.stringify(entry),
  }),
};

/** In RECORD_KINDS order. */
export const ROW_KINDS = [PURCHASE_ORDER_ROWS, INVENTORY_HISTORY_ROWS] as const;
