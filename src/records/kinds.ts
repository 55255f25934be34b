import type { TSchema } from '@sinclair/typebox';
import { filterParser, type RecordFilter } from './filters.js';
import { INVENTORY_HISTORY_ROWS, PURCHASE_ORDER_ROWS, type RowKind } from './rows.js';
import {
  type InventoryHistoryLogEntry,
  InventoryHistoryLogEntrySchema,
  InventoryHistoryResponseSchema,
  InventoryHistorySearchRequestSchema,
  type PurchaseOrder,
  PurchaseOrderSchema,
  PurchaseOrdersResponseSchema,
  PurchaseOrdersSearchRequestSchema,
} from './schemas.js';

export type { Condition, Equality, IndexedColumn, RecordFilter } from './filters.js';
export { equalityBranches } from './filters.js';
export type { RecordRow, RowKind } from './rows.js';

/**
 * A record type as data: what the API, the stores, the import, the seed and `larder check` need to know about it.
 * Everything that handles records loops over RECORD_KINDS or takes a kind; nothing branches on the kind's name.
 */
export interface RecordKind<R = unknown> extends RowKind<R> {
  /** In messages: `No <label> <id> at location <loc>.` */
  readonly label: string;
  /** The key of a location's record count in `larder locations` (LocationSummary). */
  readonly countField: 'purchaseOrders' | 'inventoryEntries';
  /** Records counted in CLI output: `12 purchase orders`. */
  readonly countLabel: string;
  /** The record's id field. */
  readonly idField: string;
  /** The path parameter of GET /v1/<name>/:<idParam>. */
  readonly idParam: string;
  readonly schema: TSchema;
  /** The search request body. */
  readonly searchSchema: TSchema;
  /** A search answer: a page of records and its tokens. */
  readonly pageSchema: TSchema;
  /** The OpenAPI operation ids of its search and its get by id (the journal and report name them too). */
  readonly operations: { readonly search: string; readonly get: string };
  /** Validates a search body (LarderError ERR_VALIDATION / ERR_DATE_RANGE) and reduces it to a filter. */
  parseFilter(body: unknown): RecordFilter;
}

export type RecordKindName = RecordKind['name'];

export const PURCHASE_ORDERS: RecordKind<PurchaseOrder> = {
  ...PURCHASE_ORDER_ROWS,
  label: 'purchase order',
  countField: 'purchaseOrders',
  countLabel: 'purchase orders',
  idField: 'id',
  idParam: 'purchaseOrderId',
  schema: PurchaseOrderSchema,
  searchSchema: PurchaseOrdersSearchRequestSchema,
  pageSchema: PurchaseOrdersResponseSchema,
  operations: { search: 'searchPurchaseOrders', get: 'getPurchaseOrderById' },
  parseFilter: filterParser(PurchaseOrdersSearchRequestSchema, [
    { field: 'purchaseOrderStatuses', column: 'status', kind: 'anyOf' },
    { field: 'includeArchived', column: 'archived', kind: 'include', otherwise: false },
  ]),
};

export const INVENTORY_HISTORY: RecordKind<InventoryHistoryLogEntry> = {
  ...INVENTORY_HISTORY_ROWS,
  label: 'inventory history entry',
  countField: 'inventoryEntries',
  countLabel: 'inventory entries',
  idField: 'inventoryHistoryLogId',
  idParam: 'inventoryHistoryEntryId',
  schema: InventoryHistoryLogEntrySchema,
  searchSchema: InventoryHistorySearchRequestSchema,
  pageSchema: InventoryHistoryResponseSchema,
  operations: { search: 'searchInventoryHistory', get: 'getInventoryHistoryById' },
  parseFilter: filterParser(InventoryHistorySearchRequestSchema, [
    { field: 'adjustmentType', column: 'adjustment_type', kind: 'anyOf' },
  ]),
};

export const RECORD_KINDS = [PURCHASE_ORDERS, INVENTORY_HISTORY] as const;

/** A kind by its name (worker messages carry names: descriptors hold functions). */
export const recordKind = (name: RecordKindName): RecordKind => {
  const kind = RECORD_KINDS.find((candidate) => candidate.name === name);
  if (kind === undefined) throw new Error(`Unknown record kind ${name}.`);
  return kind as RecordKind;
};

/** One count per kind, keyed by kind name. */
export type KindCounts = Record<RecordKindName, number>;

export const zeroCounts = (): KindCounts =>
  Object.fromEntries(RECORD_KINDS.map((kind) => [kind.name, 0])) as KindCounts;

/** One count per kind, keyed by each kind's `countField` (the shape reports and `larder locations` show). */
export type FieldCounts = Record<RecordKind['countField'], number>;

export const toFieldCounts = (counts: KindCounts): FieldCounts =>
  Object.fromEntries(RECORD_KINDS.map((kind) => [kind.countField, counts[kind.name]])) as FieldCounts;

/** `3 purchase orders, 5 inventory entries`: a location's counts as the CLI prints them, of every kind or of `kinds`. */
export const describeCounts = (counts: FieldCounts, kinds: readonly RecordKind[] = RECORD_KINDS): string =>
  kinds.map((kind) => `${counts[kind.countField]} ${kind.countLabel}`).join(', ');

/** All records counted, whatever their kind. */
export const totalCount = (counts: FieldCounts): number =>
  RECORD_KINDS.reduce((sum, kind) => sum + counts[kind.countField], 0);
