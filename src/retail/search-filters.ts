import type { InventoryHistoryAdjustmentType, PurchaseOrderStatus } from '../records/schemas.js';
import {
  type InventoryHistorySearchRequest,
  InventoryHistorySearchRequestSchema,
  type PurchaseOrdersSearchRequest,
  PurchaseOrdersSearchRequestSchema,
} from '../records/schemas.js';
import { LarderError } from '../shared/errors.js';
import { createValidator } from '../shared/validator.js';

/** A search body, validated and reduced to what the store filters on. */
export interface PurchaseOrderFilter {
  statuses: PurchaseOrderStatus[];
  includeArchived: boolean;
  modifiedFrom?: number;
  modifiedBefore?: number;
}

export interface InventoryFilter {
  adjustmentTypes: InventoryHistoryAdjustmentType[];
  modifiedFrom?: number;
  modifiedBefore?: number;
}

const DAY_MS = 86_400_000;

const validationError = (problems: ReturnType<ReturnType<typeof createValidator>['problems']>) => {
  const [first] = problems;
  if (problems.length === 1 && first !== undefined) {
    return new LarderError('ERR_VALIDATION', {
      fieldName: first.fieldName,
      message: `${first.fieldName} ${first.message}.`,
    });
  }
  return new LarderError('ERR_VALIDATION', {
    message: `The request body has ${problems.length} invalid fields: ${problems.map((p) => p.fieldName).join(', ')}.`,
    problems,
  });
};

const validate = <T>(validator: ReturnType<typeof createValidator<T>>, body: unknown): T => {
  const problems = validator.problems(body);
  if (problems.length > 0) throw validationError(problems);
  return body as T;
};

/** Whole UTC days, inclusive at both ends, as a half-open epoch-ms interval. */
const dateBounds = (range: { startDate: string; endDate?: string | null } | null | undefined) => {
  if (range === null || range === undefined) return {};
  const modifiedFrom = Date.parse(`${range.startDate}T00:00:00Z`);
  if (range.endDate === null || range.endDate === undefined) return { modifiedFrom };
  const modifiedBefore = Date.parse(`${range.endDate}T00:00:00Z`) + DAY_MS;
  if (modifiedBefore <= modifiedFrom) {
    throw new LarderError('ERR_DATE_RANGE', {
      fieldName: 'updatedDateRange.endDate',
      message: `updatedDateRange.endDate (${range.endDate}) is before startDate (${range.startDate}).`,
    });
  }
  return { modifiedFrom, modifiedBefore };
};

/** Deduplicated and sorted, so equivalent filters bind the same page tokens. */
const canonicalSet = <T extends string>(values: readonly T[] | null | undefined): T[] =>
  [...new Set(values ?? [])].sort();

const purchaseOrderValidator = createValidator<PurchaseOrdersSearchRequest>(
  PurchaseOrdersSearchRequestSchema,
);
const inventoryValidator = createValidator<InventoryHistorySearchRequest>(
  InventoryHistorySearchRequestSchema,
);

export const parsePurchaseOrderFilter = (body: unknown): PurchaseOrderFilter => {
  const request = validate(purchaseOrderValidator, body);
  return {
    statuses: canonicalSet(request.purchaseOrderStatuses),
    includeArchived: request.includeArchived === true,
    ...dateBounds(request.updatedDateRange),
  };
};

export const parseInventoryFilter = (body: unknown): InventoryFilter => {
  const request = validate(inventoryValidator, body);
  return { adjustmentTypes: canonicalSet(request.adjustmentType), ...dateBounds(request.updatedDateRange) };
};

/** The canonical text a page token is bound to. */
export const filterBinding = (filter: PurchaseOrderFilter | InventoryFilter): string =>
  JSON.stringify([
    'statuses' in filter ? filter.statuses : filter.adjustmentTypes,
    'includeArchived' in filter ? filter.includeArchived : null,
    filter.modifiedFrom ?? null,
    filter.modifiedBefore ?? null,
  ]);
