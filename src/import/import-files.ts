import type { Readable } from 'node:stream';
import { toInventoryRecord, toPurchaseOrderRecord } from '../retail/records.js';
import {
  type InventoryHistoryLogEntry,
  InventoryHistoryLogEntrySchema,
  type PurchaseOrder,
  PurchaseOrderSchema,
} from '../retail/schemas.js';
import { createValidator, type Validator } from '../shared/validator.js';
import type {
  ImportCounts,
  ImportSession,
  InventoryRecord,
  PurchaseOrderRecord,
  Store,
} from '../storage/store.js';
import { openInput, RecordSyntaxError, readRecords } from './record-stream.js';

export interface ImportProblem {
  file: string;
  line: number;
  fieldName: string;
  message: string;
}

export interface ImportSource {
  /** Shown in problems; `-` reads standard input. */
  path: string;
  /** Defaults to opening `path`. */
  input?: Readable;
}

export interface ImportOptions {
  locationId: string;
  locationName?: string;
  purchaseOrders?: ImportSource;
  inventoryHistory?: ImportSource;
  /** Stop after this many problems (default 50). */
  maxProblems?: number;
  /** Nothing else uses the store meanwhile: SQLite may write without its WAL (see ImportSessionOptions). */
  exclusive?: boolean;
  /** Called at most every batch with the records read so far. */
  onProgress?: (records: number) => void;
}

export interface ImportResult {
  committed: boolean;
  counts: ImportCounts;
  problems: ImportProblem[];
  /** True when reading stopped at maxProblems, so more problems may exist. */
  truncated: boolean;
}

const BATCH = 1000;

const purchaseOrderValidator = createValidator<PurchaseOrder>(PurchaseOrderSchema);
const inventoryValidator = createValidator<InventoryHistoryLogEntry>(InventoryHistoryLogEntrySchema);

interface Kind<T, R> {
  validator: Validator<T>;
  toRecord: (value: T) => R;
  put: (session: ImportSession, rows: R[]) => Promise<void>;
}

const PURCHASE_ORDERS: Kind<PurchaseOrder, PurchaseOrderRecord> = {
  validator: purchaseOrderValidator,
  toRecord: toPurchaseOrderRecord,
  put: (session, rows) => session.putPurchaseOrders(rows),
};
const INVENTORY: Kind<InventoryHistoryLogEntry, InventoryRecord> = {
  validator: inventoryValidator,
  toRecord: toInventoryRecord,
  put: (session, rows) => session.putInventoryEntries(rows),
};

/**
 * Imports records in the interface's shapes into one location, all or nothing: every record is validated, and
 * a single problem anywhere rolls the whole run back. Files stream, so memory stays bounded by the batch size.
 */
export const importFiles = async (store: Store, options: ImportOptions): Promise<ImportResult> => {
  const maxProblems = options.maxProblems ?? 50;
  const problems: ImportProblem[] = [];
  let truncated = false;
  let read = 0;
  const session = await store.beginImport(
    {
      id: options.locationId,
      ...(options.locationName === undefined ? {} : { name: options.locationName }),
    },
    { exclusive: options.exclusive ?? false },
  );

  const load = async <T, R>(source: ImportSource, kind: Kind<T, R>) => {
    const report = (line: number, fieldName: string, message: string) => {
      problems.push({ file: source.path, line, fieldName, message });
      if (problems.length >= maxProblems) truncated = true;
    };
    let batch: R[] = [];
    // One batch is written while the next is read and validated: on PostgreSQL the two halves overlap.
    let writing: Promise<void> = Promise.resolve();
    const write = async (rows: R[]) => {
      await writing;
      writing = kind.put(session, rows);
      // Awaited before the next write and at the end; until then it must not count as an unhandled rejection.
      writing.catch(() => {});
    };
    try {
      for await (const raw of readRecords(source.input ?? openInput(source.path))) {
        if (truncated) return;
        read++;
        let value: unknown;
        try {
          value = JSON.parse(raw.text);
        } catch (error) {
          report(raw.line, '(record)', `is not valid JSON: ${(error as Error).message}`);
          continue;
        }
        const found = kind.validator.problems(value);
        for (const problem of found) {
          if (truncated) break;
          report(raw.line, problem.fieldName, problem.message);
        }
        if (found.length > 0 || problems.length > 0) continue;
        batch.push(kind.toRecord(value as T));
        if (batch.length === BATCH) {
          await write(batch);
          batch = [];
          options.onProgress?.(read);
        }
      }
    } catch (error) {
      if (error instanceof RecordSyntaxError) {
        report(error.line, '(file)', error.message);
        return;
      }
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        report(0, '(file)', 'no such file');
        return;
      }
      throw error;
    } finally {
      await writing;
    }
    if (problems.length === 0 && batch.length > 0) await kind.put(session, batch);
    options.onProgress?.(read);
  };

  try {
    if (options.purchaseOrders !== undefined) await load(options.purchaseOrders, PURCHASE_ORDERS);
    if (options.inventoryHistory !== undefined && !truncated) await load(options.inventoryHistory, INVENTORY);
  } catch (error) {
    await session.rollback();
    throw error;
  }
  if (problems.length > 0) {
    await session.rollback();
    return { committed: false, counts: { purchaseOrders: 0, inventoryEntries: 0 }, problems, truncated };
  }
  return { committed: true, counts: await session.commit(), problems, truncated };
};

export const formatProblem = (problem: ImportProblem): string =>
  `${problem.file}:${problem.line} ${problem.fieldName}: ${problem.message}`;
