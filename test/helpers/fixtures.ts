import type {
  InventoryHistoryAdjustmentType,
  InventoryHistoryLogEntry,
  PurchaseOrder,
  PurchaseOrderStatus,
} from '../../src/records/schemas.js';

/** Full, valid interface records for HTTP and import tests; `n` makes ids that sort by n. */

export const uuidFor = (n: number, tag = 0): string =>
  `${n.toString(16).padStart(8, '0')}-${tag.toString(16).padStart(4, '0')}-4000-8000-000000000000`;

export const isoAt = (ms: number): string => new Date(ms).toISOString();

export const purchaseOrderFixture = (
  n: number,
  options: { modifiedAt: number; status?: PurchaseOrderStatus; archived?: boolean },
): PurchaseOrder => ({
  id: uuidFor(n, 1),
  createdDate: isoAt(options.modifiedAt - 3_600_000),
  modifiedDate: isoAt(options.modifiedAt),
  archived: options.archived ?? false,
  status: options.status ?? 'ORDERED',
  paid: false,
  supplier: {
    id: uuidFor(7, 9),
    name: 'Harbor Produce Co.',
    accountNumber: null,
    address: {
      regionCode: 'US',
      addressLines: ['12 Pier Rd'],
      revision: 1,
      locality: 'Portland',
      postalCode: null,
    },
    phoneDetails: { countryCode: '1', countryIsoCode: 'US', nationalNumber: '5035550142' },
    email: 'orders@harborproduce.example',
  },
  platformGeneratedPurchaseOrderNumber: 1000 + n,
  externalPurchaseOrderNumber: null,
  items: [
    {
      itemVersionId: uuidFor(n, 2),
      name: 'Roma tomatoes',
      supplierItemId: 'TOM-25',
      orderedItemInfo: {
        orderedQuantity: 2,
        orderedUnit: { name: 'case', quantityInUnit: 25 },
        orderedCost: { baseCost: 31.5, subtotal: 63, total: 63, landedCost: 1.26 },
      },
      taxes: [],
      fees: [{ name: 'Fuel', absoluteValue: 2.5, percentageValue: null, isTaxable: false }],
      discounts: [],
      receivedEvents: [],
    },
  ],
  distributionStrategies: { feesDistributionStrategy: 'ITEM_TOTAL_COST' },
  purchaseOrderTotals: { itemsSubtotal: 63, subtotalCost: 63, totalCost: 65.5 },
  purchasingEntityInfo: { taxes: [], fees: [], discounts: [] },
  supplierNotes: 'Deliver before 10am.',
});

export const inventoryFixture = (
  n: number,
  options: { modifiedAt: number; adjustmentType?: InventoryHistoryAdjustmentType },
): InventoryHistoryLogEntry => ({
  inventoryHistoryLogId: uuidFor(n, 3),
  itemVersionId: uuidFor(n % 5, 2),
  createdDate: isoAt(options.modifiedAt),
  modifiedDate: isoAt(options.modifiedAt),
  notes: null,
  adjustmentType: options.adjustmentType ?? 'COUNT',
  purchaseOrderId: null,
  quantityInfo: { quantityOnHand: 40, quantityVariance: -2 },
  costInfo: { capturedCost: 1.26, landedCost: null },
  userDetails: { id: null, firstName: 'Ana', lastName: 'Ruiz' },
});
