import { type Static, Type } from '@sinclair/typebox';
import { Closed, DateTime, Double, Int32, Nullable, Uuid } from '../shared/schema-helpers.js';
import { ADJUSTMENT_TYPES, DISTRIBUTION_STRATEGIES, PURCHASE_ORDER_STATUSES } from './enums.js';

/**
 * The retail interface's shapes (interface.md §2), field for field. These schemas are the single source of
 * truth: TS types, import validation, search-body validation and the OpenAPI document all derive from them.
 */

export {
  ADJUSTMENT_TYPES,
  DISTRIBUTION_STRATEGIES,
  type InventoryHistoryAdjustmentType,
  PURCHASE_ORDER_STATUSES,
  type PurchaseOrderStatus,
} from './enums.js';

export const StringEnum = <T extends readonly string[]>(values: T, description: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], description });

export const PurchaseOrderStatusSchema = StringEnum(PURCHASE_ORDER_STATUSES, 'PurchaseOrderStatus');
export const AdjustmentTypeSchema = StringEnum(ADJUSTMENT_TYPES, 'InventoryHistoryAdjustmentType');
export const AdjustmentDistributionStrategySchema = StringEnum(
  DISTRIBUTION_STRATEGIES,
  'How order-level adjustments were applied to item-level costs',
);

export const PhoneDetailsSchema = Type.Object(
  { countryCode: Type.String(), countryIsoCode: Type.String(), nationalNumber: Type.String() },
  { title: 'PhoneDetails', ...Closed },
);

export const AddressSchema = Type.Object(
  {
    regionCode: Type.String(),
    addressLines: Type.Array(Type.String()),
    revision: Int32({ description: 'Revision number of the address.' }),
    languageCode: Type.Optional(Nullable(Type.String())),
    postalCode: Type.Optional(Nullable(Type.String())),
    sortingCode: Type.Optional(Nullable(Type.String())),
    administrativeArea: Type.Optional(Nullable(Type.String())),
    locality: Type.Optional(Nullable(Type.String())),
    sublocality: Type.Optional(Nullable(Type.String())),
  },
  { title: 'Address', ...Closed },
);

export const SupplierSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    accountNumber: Type.Optional(Nullable(Type.String())),
    address: Type.Optional(AddressSchema),
    contactName: Type.Optional(Nullable(Type.String())),
    phoneDetails: Type.Optional(PhoneDetailsSchema),
    email: Type.Optional(Nullable(Type.String())),
  },
  { title: 'Supplier', ...Closed },
);

const adjustmentFields = {
  name: Type.Optional(Nullable(Type.String())),
  absoluteValue: Type.Optional(Nullable(Double())),
  percentageValue: Type.Optional(Nullable(Double())),
};

export const TaxSchema = Type.Object(adjustmentFields, { title: 'Tax', ...Closed });
export const FeeSchema = Type.Object(
  { ...adjustmentFields, isTaxable: Type.Optional(Type.Boolean()) },
  { title: 'Fee', ...Closed },
);
export const PurchasingItemDiscountSchema = Type.Object(adjustmentFields, {
  title: 'PurchasingItemDiscount',
  ...Closed,
});
export const PurchasingEntityDiscountSchema = Type.Object(
  { ...adjustmentFields, combineWithItemDiscounts: Type.Optional(Type.Boolean()) },
  { title: 'PurchasingEntityDiscount', ...Closed },
);

export const NamedItemReceivingUnitSchema = Type.Object(
  { name: Type.String(), quantityInUnit: Type.Optional(Double()) },
  { title: 'NamedItemReceivingUnit', ...Closed },
);

export const ItemCostsSchema = Type.Object(
  {
    baseCost: Type.Optional(Nullable(Double())),
    subtotal: Type.Optional(Nullable(Double())),
    total: Type.Optional(Nullable(Double())),
    landedCost: Type.Optional(Nullable(Double())),
  },
  { title: 'ItemCosts', ...Closed },
);

export const OrderedItemInfoSchema = Type.Object(
  {
    orderedQuantity: Double(),
    orderedUnit: NamedItemReceivingUnitSchema,
    orderedCost: Type.Optional(ItemCostsSchema),
  },
  { title: 'OrderedItemInfo', ...Closed },
);

export const ReceivedEventSchema = Type.Object(
  {
    receivedQuantity: Double(),
    receivedUnit: Type.Optional(NamedItemReceivingUnitSchema),
    receivedCosts: Type.Optional(ItemCostsSchema),
    inventoryHistoryId: Type.Optional(Uuid()),
  },
  { title: 'ReceivedEvent', ...Closed },
);

export const PurchaseOrderItemSchema = Type.Object(
  {
    itemVersionId: Uuid(),
    name: Type.String(),
    supplierItemId: Type.Optional(Nullable(Type.String())),
    orderedItemInfo: OrderedItemInfoSchema,
    taxes: Type.Array(TaxSchema),
    fees: Type.Array(FeeSchema),
    discounts: Type.Array(PurchasingItemDiscountSchema),
    receivedEvents: Type.Array(ReceivedEventSchema),
  },
  { title: 'PurchaseOrderItem', ...Closed },
);

export const DistributionStrategiesSchema = Type.Object(
  {
    taxDistributionStrategy: Type.Optional(AdjustmentDistributionStrategySchema),
    feesDistributionStrategy: Type.Optional(AdjustmentDistributionStrategySchema),
    discountsDistributionStrategy: Type.Optional(AdjustmentDistributionStrategySchema),
  },
  { title: 'DistributionStrategies', ...Closed },
);

export const PurchaseOrderTotalsSchema = Type.Object(
  {
    itemsSubtotal: Nullable(Double()),
    subtotalCost: Type.Optional(Nullable(Double())),
    totalCost: Double(),
  },
  { title: 'PurchaseOrderTotals', ...Closed },
);

export const PurchasingEntityInfoSchema = Type.Object(
  {
    taxes: Type.Array(TaxSchema),
    fees: Type.Array(FeeSchema),
    discounts: Type.Array(PurchasingEntityDiscountSchema),
  },
  { title: 'PurchasingEntityInfo', ...Closed },
);

export const PurchaseOrderSchema = Type.Object(
  {
    id: Uuid({ description: 'Identifier of the purchase order.' }),
    createdDate: DateTime(),
    modifiedDate: DateTime(),
    archived: Type.Boolean(),
    status: PurchaseOrderStatusSchema,
    paid: Type.Boolean(),
    supplier: SupplierSchema,
    platformGeneratedPurchaseOrderNumber: Int32(),
    externalPurchaseOrderNumber: Type.Optional(Nullable(Type.String())),
    externalInvoiceNumber: Type.Optional(Nullable(Type.String())),
    items: Type.Array(PurchaseOrderItemSchema),
    distributionStrategies: Type.Optional(DistributionStrategiesSchema),
    purchaseOrderTotals: PurchaseOrderTotalsSchema,
    expectedDate: Type.Optional(DateTime()),
    purchasingEntityInfo: PurchasingEntityInfoSchema,
    supplierNotes: Type.String(),
    receivingNotes: Type.Optional(Type.String()),
  },
  { title: 'PurchaseOrder', ...Closed },
);

export const InventoryHistoryQuantitySchema = Type.Object(
  { quantityOnHand: Double(), quantityVariance: Type.Optional(Nullable(Double())) },
  { title: 'InventoryHistoryQuantity', ...Closed },
);

export const InventoryHistoryCostSchema = Type.Object(
  {
    capturedCost: Type.Optional(Nullable(Double())),
    landedCost: Type.Optional(Nullable(Double())),
    receivingUnitCost: Type.Optional(Nullable(Double())),
  },
  { title: 'InventoryHistoryCost', ...Closed },
);

export const UserDetailsSchema = Type.Object(
  {
    id: Type.Optional(Nullable(Uuid())),
    firstName: Type.Optional(Nullable(Type.String())),
    lastName: Type.Optional(Nullable(Type.String())),
  },
  { title: 'UserDetails', ...Closed },
);

export const InventoryHistoryLogEntrySchema = Type.Object(
  {
    inventoryHistoryLogId: Uuid({ description: 'Identifier of the adjustment.' }),
    itemVersionId: Uuid(),
    createdDate: DateTime(),
    modifiedDate: DateTime(),
    notes: Nullable(Type.String()),
    adjustmentType: AdjustmentTypeSchema,
    supplier: Type.Optional(SupplierSchema),
    purchaseOrderId: Type.Optional(Nullable(Uuid())),
    quantityInfo: InventoryHistoryQuantitySchema,
    costInfo: Type.Optional(InventoryHistoryCostSchema),
    userDetails: UserDetailsSchema,
  },
  { title: 'InventoryHistoryLogEntry', ...Closed },
);

/** Search bodies: `null` on an optional field is read as absent (Jackson-style clients send nulls). */
export const DateRangeSchema = Type.Object(
  {
    startDate: Type.String({ format: 'date', description: 'First day (UTC), inclusive. YYYY-MM-DD.' }),
    endDate: Type.Optional(
      Nullable(Type.String({ format: 'date', description: 'Last day (UTC), inclusive. YYYY-MM-DD.' })),
    ),
  },
  { title: 'DateRange', ...Closed },
);

/** Filter arrays hold at most this many entries (decisions.md). */
export const MAX_FILTER_ENTRIES = 50;

export const PurchaseOrdersSearchRequestSchema = Type.Object(
  {
    updatedDateRange: Type.Optional(Nullable(DateRangeSchema)),
    includeArchived: Type.Optional(Nullable(Type.Boolean())),
    purchaseOrderStatuses: Type.Optional(
      Nullable(Type.Array(PurchaseOrderStatusSchema, { maxItems: MAX_FILTER_ENTRIES })),
    ),
  },
  { title: 'PurchaseOrdersSearchRequest', ...Closed },
);

export const InventoryHistorySearchRequestSchema = Type.Object(
  {
    updatedDateRange: Type.Optional(Nullable(DateRangeSchema)),
    adjustmentType: Type.Optional(
      Nullable(Type.Array(AdjustmentTypeSchema, { maxItems: MAX_FILTER_ENTRIES })),
    ),
  },
  { title: 'InventoryHistorySearchRequest', ...Closed },
);

export const PurchaseOrdersResponseSchema = Type.Object(
  {
    currentPageToken: Type.String(),
    nextPageToken: Type.String(),
    data: Type.Array(PurchaseOrderSchema),
  },
  { title: 'PurchaseOrdersResponse', ...Closed },
);

export const InventoryHistoryResponseSchema = Type.Object(
  {
    currentPageToken: Type.String(),
    nextPageToken: Type.String(),
    data: Type.Array(InventoryHistoryLogEntrySchema),
  },
  { title: 'InventoryHistoryResponse', ...Closed },
);

export type PurchaseOrder = Static<typeof PurchaseOrderSchema>;
export type PurchaseOrderItem = Static<typeof PurchaseOrderItemSchema>;
export type Supplier = Static<typeof SupplierSchema>;
export type Address = Static<typeof AddressSchema>;
export type ItemCosts = Static<typeof ItemCostsSchema>;
export type ReceivedEvent = Static<typeof ReceivedEventSchema>;
export type Tax = Static<typeof TaxSchema>;
export type Fee = Static<typeof FeeSchema>;
export type PurchasingItemDiscount = Static<typeof PurchasingItemDiscountSchema>;
export type PurchasingEntityDiscount = Static<typeof PurchasingEntityDiscountSchema>;
export type InventoryHistoryLogEntry = Static<typeof InventoryHistoryLogEntrySchema>;
export type UserDetails = Static<typeof UserDetailsSchema>;
export type PurchaseOrdersSearchRequest = Static<typeof PurchaseOrdersSearchRequestSchema>;
export type InventoryHistorySearchRequest = Static<typeof InventoryHistorySearchRequestSchema>;
