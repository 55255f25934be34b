import type {
  InventoryHistoryAdjustmentType,
  InventoryHistoryLogEntry,
  PurchaseOrder,
  PurchaseOrderItem,
  PurchaseOrderStatus,
} from '../src/retail/schemas.js';

/**
 * The bench's records: deterministic, valid interface records of realistic size (~3 KB per purchase order,
 * ~0.7 KB per inventory entry), with `modifiedDate` spread over 180 days so date filters select a slice.
 */

export const BENCH_LOCATION = 'bench-location-1';
/** Bump when the records change, so cached stores are rebuilt. */
export const DATASET_VERSION = 1;
export const HISTORY_END = Date.UTC(2025, 5, 30);
export const HISTORY_DAYS = 180;
const HISTORY_START = HISTORY_END - HISTORY_DAYS * 86_400_000;

export interface DatasetSize {
  purchaseOrders: number;
  inventoryEntries: number;
}

export const datasetSize = (scale: number): DatasetSize => ({
  purchaseOrders: Math.max(100, Math.round(100_000 * scale)),
  inventoryEntries: Math.max(1000, Math.round(1_000_000 * scale)),
});

/** UUIDs that encode the record's kind and index: distinct, stable, and cheap to regenerate. */
const uuid = (kind: number, n: number): string => {
  const hex = n.toString(16).padStart(12, '0');
  return `${(0x9e3779b1 * (n + 1) * (kind + 1)).toString(16).slice(-8).padStart(8, '0')}-${kind.toString(16).padStart(4, '0')}-4${hex.slice(0, 3)}-8${hex.slice(3, 6)}-${hex.slice(0, 12)}`;
};

export const purchaseOrderId = (n: number): string => uuid(1, n);
export const inventoryEntryId = (n: number): string => uuid(3, n);

/** Small deterministic PRNG (mulberry32): the same index always yields the same record. */
const random = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const cents = (value: number): number => Math.round(value * 100) / 100;
const iso = (ms: number): string => new Date(ms).toISOString();

const ITEMS = ['Roma tomatoes', 'Yellow onions', 'Whole milk', 'Chicken thighs', 'Basmati rice', 'Olive oil'];
const UNITS = [
  { name: 'case', quantityInUnit: 24 },
  { name: 'bag', quantityInUnit: 10 },
  { name: 'each', quantityInUnit: 1 },
];
const STATUSES: readonly PurchaseOrderStatus[] = [
  'DRAFT',
  'ORDERED',
  'PARTIALLY_RECEIVED',
  'RECEIVED',
  'VOIDED',
];
const ADJUSTMENTS: readonly InventoryHistoryAdjustmentType[] = [
  'RECEIVE',
  'COUNT',
  'WASTED',
  'DAMAGE',
  'CYCLE_COUNT',
  'PRODUCED_MANUALLY',
];

const supplier = (n: number) => ({
  id: uuid(9, n % 12),
  name: `Harbor Produce Co. ${n % 12}`,
  accountNumber: `ACC-${1000 + (n % 12)}`,
  address: {
    regionCode: 'US',
    addressLines: ['12 Pier Rd', 'Unit 4'],
    revision: 1,
    languageCode: 'en',
    postalCode: '97201',
    administrativeArea: 'OR',
    locality: 'Portland',
  },
  contactName: 'Dana Whitfield',
  phoneDetails: { countryCode: '1', countryIsoCode: 'US', nationalNumber: '5035550142' },
  email: 'orders@harborproduce.example',
});

const at = (index: number, count: number, jitter: number): number =>
  HISTORY_START + Math.floor(((index + jitter) / count) * HISTORY_DAYS * 86_400_000);

export const purchaseOrderAt = (n: number, count: number): PurchaseOrder => {
  const next = random(n * 7 + 1);
  const modifiedAt = at(n, count, next());
  const lines = 3 + Math.floor(next() * 4);
  const items: PurchaseOrderItem[] = [];
  let subtotal = 0;
  for (let line = 0; line < lines; line++) {
    const unit = UNITS[line % UNITS.length]!;
    const quantity = 1 + Math.floor(next() * 6);
    const baseCost = cents(5 + next() * 60);
    const lineTotal = cents(baseCost * quantity);
    subtotal += lineTotal;
    items.push({
      itemVersionId: uuid(2, (n * 7 + line) % 150),
      name: ITEMS[(n + line) % ITEMS.length]!,
      supplierItemId: `SKU-${(n + line) % 997}`,
      orderedItemInfo: {
        orderedQuantity: quantity,
        orderedUnit: unit,
        orderedCost: { baseCost, subtotal: lineTotal, total: lineTotal, landedCost: cents(baseCost / 10) },
      },
      taxes: [],
      fees: [{ name: 'Fuel', absoluteValue: 2.5, percentageValue: null, isTaxable: false }],
      discounts: [],
      receivedEvents: [
        {
          receivedQuantity: quantity,
          receivedUnit: unit,
          receivedCosts: {
            baseCost,
            subtotal: lineTotal,
            total: lineTotal,
            landedCost: cents(baseCost / 10),
          },
          inventoryHistoryId: uuid(3, (n * 10 + line) % 1_000_000),
        },
      ],
    });
  }
  subtotal = cents(subtotal);
  return {
    id: purchaseOrderId(n),
    createdDate: iso(modifiedAt - 86_400_000),
    modifiedDate: iso(modifiedAt),
    archived: n % 10 === 0,
    status: STATUSES[n % STATUSES.length]!,
    paid: n % 3 === 0,
    supplier: supplier(n),
    platformGeneratedPurchaseOrderNumber: 10_000 + n,
    externalPurchaseOrderNumber: `EXT-${n}`,
    externalInvoiceNumber: `INV-${n}`,
    items,
    distributionStrategies: {
      taxDistributionStrategy: 'ITEM_TOTAL_COST',
      feesDistributionStrategy: 'ITEM_QUANTITY',
      discountsDistributionStrategy: 'ITEM_TOTAL_COST',
    },
    purchaseOrderTotals: {
      itemsSubtotal: subtotal,
      subtotalCost: subtotal,
      totalCost: cents(subtotal + 2.5),
    },
    expectedDate: iso(modifiedAt + 2 * 86_400_000),
    purchasingEntityInfo: {
      taxes: [{ name: 'State tax', absoluteValue: null, percentageValue: 6.5 }],
      fees: [],
      discounts: [],
    },
    supplierNotes: 'Deliver before 10am, back entrance.',
    receivingNotes: 'Check temperatures on arrival.',
  };
};

export const inventoryEntryAt = (n: number, count: number): InventoryHistoryLogEntry => {
  const next = random(n * 13 + 5);
  const modifiedAt = at(n, count, next());
  const adjustmentType = ADJUSTMENTS[n % ADJUSTMENTS.length]!;
  const receiving = adjustmentType === 'RECEIVE';
  return {
    inventoryHistoryLogId: inventoryEntryId(n),
    itemVersionId: uuid(2, n % 150),
    createdDate: iso(modifiedAt),
    modifiedDate: iso(modifiedAt),
    notes: receiving ? 'Received against the purchase order.' : null,
    adjustmentType,
    ...(receiving ? { supplier: supplier(n), purchaseOrderId: purchaseOrderId(Math.floor(n / 10)) } : {}),
    quantityInfo: { quantityOnHand: cents(next() * 200), quantityVariance: cents(next() * 4 - 2) },
    costInfo: { capturedCost: cents(next() * 40), landedCost: cents(next() * 40), receivingUnitCost: null },
    userDetails: { id: uuid(5, n % 20), firstName: 'Ana', lastName: 'Ruiz' },
  };
};

/** The records in batches, so a million entries never sit in memory at once. */
export function* batches<T>(
  count: number,
  make: (n: number, count: number) => T,
  size = 1000,
): Generator<T[]> {
  for (let start = 0; start < count; start += size) {
    const batch: T[] = [];
    for (let n = start; n < Math.min(count, start + size); n++) batch.push(make(n, count));
    yield batch;
  }
}
