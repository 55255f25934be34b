/**
 * The interface's enumerations, in a module of their own with no dependencies, so the web console can import
 * the values without bundling the schema library. src/records/schemas.ts builds the schemas from them.
 */

export const PURCHASE_ORDER_STATUSES = [
  'DRAFT',
  'ORDERED',
  'PARTIALLY_RECEIVED',
  'RECEIVED',
  'VOIDED',
] as const;
export type PurchaseOrderStatus = (typeof PURCHASE_ORDER_STATUSES)[number];

export const ADJUSTMENT_TYPES = [
  'AUTO_LINK_TRANSFER_IN',
  'AUTO_LINK_TRANSFER_OUT',
  'COUNT',
  'CYCLE_COUNT',
  'DAMAGE',
  'EXPIRE',
  'EXTERNAL',
  'INITIAL',
  'LOSS',
  'MISSING_DURING_TRANSFER',
  'PRODUCED_MANUALLY',
  'RECEIVE',
  'RESTOCK',
  'SAMPLED',
  'THEFT',
  'TRANSFERRED_INTERNALLY',
  'TRANSFERRED_TO_OTHER_LOCATION',
  'WASTED',
] as const;
export type InventoryHistoryAdjustmentType = (typeof ADJUSTMENT_TYPES)[number];

export const DISTRIBUTION_STRATEGIES = ['ITEM_TOTAL_COST', 'ITEM_QUANTITY', 'EQUALLY_PER_ITEM'] as const;
