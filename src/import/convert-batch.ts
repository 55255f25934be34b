import { toInventoryRecord, toPurchaseOrderRecord } from '../records/kinds.js';
import {
  type InventoryHistoryLogEntry,
  InventoryHistoryLogEntrySchema,
  type PurchaseOrder,
  PurchaseOrderSchema,
} from '../records/schemas.js';
import { createValidator } from '../shared/validator.js';
import type { InventoryRecord, PurchaseOrderRecord } from '../storage/store.js';

export type RecordKind = 'purchaseOrders' | 'inventoryEntries';

/** Record texts as split from a file, with the line each starts on. */
export interface RawBatch {
  kind: RecordKind;
  texts: string[];
  lines: number[];
}

export interface BatchProblem {
  line: number;
  fieldName: string;
  message: string;
}

export interface ConvertedBatch {
  /** Empty once the batch had a problem: a run with problems stores nothing, so later records are only checked. */
  records: (PurchaseOrderRecord | InventoryRecord)[];
  problems: BatchProblem[];
}

const validators = {
  purchaseOrders: createValidator<PurchaseOrder>(PurchaseOrderSchema),
  inventoryEntries: createValidator<InventoryHistoryLogEntry>(InventoryHistoryLogEntrySchema),
};

const toRecord = (kind: RecordKind, value: unknown): PurchaseOrderRecord | InventoryRecord =>
  kind === 'purchaseOrders'
    ? toPurchaseOrderRecord(value as PurchaseOrder)
    : toInventoryRecord(value as InventoryHistoryLogEntry);

/** Parses and validates each record of the batch and turns the valid ones into rows to store. */
export const convertBatch = ({ kind, texts, lines }: RawBatch): ConvertedBatch => {
  const validator = validators[kind];
  const records: (PurchaseOrderRecord | InventoryRecord)[] = [];
  const problems: BatchProblem[] = [];
  for (let i = 0; i < texts.length; i++) {
    const line = lines[i]!;
    let value: unknown;
    try {
      value = JSON.parse(texts[i]!);
    } catch (error) {
      problems.push({
        line,
        fieldName: '(record)',
        message: `is not valid JSON: ${(error as Error).message}`,
      });
      continue;
    }
    const found = validator.problems(value);
    for (const problem of found) problems.push({ line, ...problem });
    if (problems.length === 0) records.push(toRecord(kind, value));
  }
  return { records: problems.length === 0 ? records : [], problems };
};
