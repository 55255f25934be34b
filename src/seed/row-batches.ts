import type { MessagePort } from 'node:worker_threads';
import { toInventoryRecord, toPurchaseOrderRecord } from '../records/kinds.js';
import { siblingModule, startWorker } from '../shared/start-worker.js';
import type { InventoryRecord, PurchaseOrderRecord } from '../storage/store.js';
import type { GeneratedBatch } from './generate-location.js';
import type { GenerateOptions } from './options.js';

/** One generated batch as the rows that store it, written purchase orders first. */
export interface RowBatch {
  purchaseOrders: PurchaseOrderRecord[];
  inventory: InventoryRecord[];
}

/**
 * A batch as posted between threads: one array per column, so structured clone copies strings and typed arrays
 * instead of walking a thousand small objects, and the number columns are transferred rather than copied.
 */
interface PackedBatch {
  orderIds: string[];
  orderModifiedAt: Float64Array<ArrayBuffer>;
  orderStatus: PurchaseOrderRecord['status'][];
  orderArchived: Uint8Array<ArrayBuffer>;
  orderJson: string[];
  entryIds: string[];
  entryModifiedAt: Float64Array<ArrayBuffer>;
  entryType: InventoryRecord['adjustmentType'][];
  entryJson: string[];
}

export interface SeedWorkerInput {
  options: GenerateOptions;
  /** [0]: batches posted and not yet written by the main thread. */
  inFlight: Int32Array;
}

/**
 * Batches the worker may run ahead of the writes (~5 MB each). The two sides' speeds swing (SQLite stalls while
 * the kernel writes back), so a deeper queue keeps both cores busy: 4 → 16 took a 1M-order seed from 94 to 88 s.
 */
const MAX_IN_FLIGHT = 16;

const pack = (batch: GeneratedBatch): PackedBatch => {
  const orders = batch.purchaseOrders.length;
  const entries = batch.inventory.length;
  const packed: PackedBatch = {
    orderIds: new Array(orders),
    orderModifiedAt: new Float64Array(orders),
    orderStatus: new Array(orders),
    orderArchived: new Uint8Array(orders),
    orderJson: new Array(orders),
    entryIds: new Array(entries),
    entryModifiedAt: new Float64Array(entries),
    entryType: new Array(entries),
    entryJson: new Array(entries),
  };
  for (let i = 0; i < orders; i++) {
    const row = toPurchaseOrderRecord(batch.purchaseOrders[i]!);
    packed.orderIds[i] = row.id;
    packed.orderModifiedAt[i] = row.modifiedAt;
    packed.orderStatus[i] = row.status;
    packed.orderArchived[i] = row.archived ? 1 : 0;
    packed.orderJson[i] = row.json;
  }
  for (let i = 0; i < entries; i++) {
    const row = toInventoryRecord(batch.inventory[i]!);
    packed.entryIds[i] = row.id;
    packed.entryModifiedAt[i] = row.modifiedAt;
    packed.entryType[i] = row.adjustmentType;
    packed.entryJson[i] = row.json;
  }
  return packed;
};

const unpack = (packed: PackedBatch): RowBatch => {
  const purchaseOrders: PurchaseOrderRecord[] = new Array(packed.orderIds.length);
  for (let i = 0; i < purchaseOrders.length; i++) {
    purchaseOrders[i] = {
      id: packed.orderIds[i]!,
      modifiedAt: packed.orderModifiedAt[i]!,
      status: packed.orderStatus[i]!,
      archived: packed.orderArchived[i] === 1,
      json: packed.orderJson[i]!,
    };
  }
  const inventory: InventoryRecord[] = new Array(packed.entryIds.length);
  for (let i = 0; i < inventory.length; i++) {
    inventory[i] = {
      id: packed.entryIds[i]!,
      modifiedAt: packed.entryModifiedAt[i]!,
      adjustmentType: packed.entryType[i]!,
      json: packed.entryJson[i]!,
    };
  }
  return { purchaseOrders, inventory };
};

/**
 * The worker side: serialises and posts every batch, then `null`. Blocks (Atomics.wait) while MAX_IN_FLIGHT
 * batches are unwritten, so a slow store bounds memory instead of queueing the whole location.
 */
export const postRowBatches = (
  port: MessagePort,
  batches: Iterable<GeneratedBatch>,
  inFlight: Int32Array,
): void => {
  for (const batch of batches) {
    const packed = pack(batch);
    for (let n = Atomics.load(inFlight, 0); n >= MAX_IN_FLIGHT; n = Atomics.load(inFlight, 0)) {
      Atomics.wait(inFlight, 0, n);
    }
    Atomics.add(inFlight, 0, 1);
    port.postMessage(packed, [
      packed.orderModifiedAt.buffer,
      packed.orderArchived.buffer,
      packed.entryModifiedAt.buffer,
    ]);
  }
  port.postMessage(null);
};

/** The worker module next to this one. */
export const SEED_WORKER = siblingModule(import.meta.url, 'seed-worker');

/**
 * Generated records die young (each batch is serialised and posted, then dropped): a young generation large
 * enough to hold several batches keeps them from being promoted and marked (generation 15.3 → 11.9 s per
 * 1.3M records; 48 MB gained nothing, beyond 192 MB nothing more).
 */
const resourceLimits = { maxYoungGenerationSizeMb: 192 };

/**
 * Generates and serialises one location in a worker thread, yielding its row batches in order on this thread.
 * The worker moves on as soon as a batch is posted; a batch counts as written when the consumer asks for the
 * next one. Ending early (return or throw in the consumer) and worker failures both stop the worker.
 */
export async function* workerRowBatches(
  options: GenerateOptions,
  script: URL = SEED_WORKER,
): AsyncGenerator<RowBatch, void, undefined> {
  const inFlight = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const worker = startWorker(script, {
    workerData: { options, inFlight } satisfies SeedWorkerInput,
    resourceLimits,
  });
  const queue: (PackedBatch | null)[] = [];
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const settle = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: PackedBatch | null) => {
    queue.push(message);
    settle();
  });
  worker.on('error', (error) => {
    failure ??= { error };
    settle();
  });
  // Node delivers every posted message before 'exit', so an exit seen here without `null` is a failure.
  worker.on('exit', (code) => {
    failure ??= { error: new Error(`seed worker stopped before finishing (exit code ${code})`) };
    settle();
  });
  try {
    for (;;) {
      const next = queue.shift();
      if (next === undefined) {
        if (failure !== undefined) throw failure.error;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      } else if (next === null) {
        return;
      } else {
        yield unpack(next);
        Atomics.sub(inFlight, 0, 1);
        Atomics.notify(inFlight, 0);
      }
    }
  } finally {
    await worker.terminate();
  }
}
