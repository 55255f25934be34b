// rows.ts, not kinds.ts: the worker needs no schemas or validators.
import { type RecordRow, ROW_KINDS, type RowKind } from '../records/rows.js';
import { siblingModule } from '../shared/start-worker.js';
import { answerRequests, openWorkerChannel } from '../shared/worker-channel.js';
import type { GeneratedBatch } from './generate-location.js';
import type { GenerateOptions } from './options.js';

/** One generated batch as the rows that store it, per kind; written in ROW_KINDS (= RECORD_KINDS) order. */
export type RowBatch = Record<RowKind['name'], RecordRow[]>;

/**
 * One kind's rows as posted between threads: one array per column, so structured clone copies strings and typed
 * arrays instead of walking a thousand small objects, and the number and boolean columns are transferred rather
 * than copied.
 */
interface PackedRows {
  ids: string[];
  modifiedAt: Float64Array<ArrayBuffer>;
  /** In the kind's `columns` order: text columns as strings, boolean columns as 0/1 bytes. */
  columns: (string[] | Uint8Array<ArrayBuffer>)[];
  json: string[];
}

/** A batch as posted: PackedRows per kind, in ROW_KINDS order. */
type PackedBatch = PackedRows[];

export interface SeedWorkerInput {
  options: GenerateOptions;
}

/**
 * Batches the worker may run ahead of the writes (~5 MB each). The two sides' speeds swing (SQLite stalls while
 * the kernel writes back), so a deeper queue keeps both cores busy: 4 → 16 took a 1M-order seed from 94 to 88 s.
 */
const MAX_IN_FLIGHT = 16;

const pack = (batch: GeneratedBatch): PackedBatch =>
  ROW_KINDS.map((kind: RowKind) => {
    // A kind the generator does not produce packs as no rows.
    const records: readonly unknown[] =
      (batch as Partial<Record<RowKind['name'], readonly unknown[]>>)[kind.name] ?? [];
    const count = records.length;
    const packed: PackedRows = {
      ids: new Array(count),
      modifiedAt: new Float64Array(count),
      columns: kind.columns.map((column) =>
        column.type === 'boolean' ? new Uint8Array(count) : new Array<string>(count),
      ),
      json: new Array(count),
    };
    for (let i = 0; i < count; i++) {
      const row = kind.toRow(records[i]);
      packed.ids[i] = row.id;
      packed.modifiedAt[i] = row.modifiedAt;
      for (let c = 0; c < packed.columns.length; c++) {
        const value = row.values[c]!;
        packed.columns[c]![i] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
      }
      packed.json[i] = row.json;
    }
    return packed;
  });

const unpack = (packed: PackedBatch): RowBatch => {
  const batch: Partial<RowBatch> = {};
  ROW_KINDS.forEach((kind, k) => {
    const { ids, modifiedAt, columns, json } = packed[k]!;
    const types = kind.columns.map((column) => column.type);
    const rows: RecordRow[] = new Array(ids.length);
    for (let i = 0; i < rows.length; i++) {
      const values: (string | boolean)[] = new Array(columns.length);
      for (let c = 0; c < columns.length; c++) {
        const value = columns[c]![i]!;
        values[c] = types[c] === 'boolean' ? value === 1 : (value as string);
      }
      rows[i] = { id: ids[i]!, modifiedAt: modifiedAt[i]!, values, json: json[i]! };
    }
    batch[kind.name] = rows;
  });
  return batch as RowBatch;
};

/** The typed-array buffers of a packed batch, transferred to the receiving thread instead of copied. */
const transferables = (packed: PackedBatch): ArrayBuffer[] =>
  packed.flatMap((rows) => [
    rows.modifiedAt.buffer,
    ...rows.columns.flatMap((column) => (column instanceof Uint8Array ? [column.buffer] : [])),
  ]);

/**
 * The worker side: answers each request with the next batch, serialised and packed, or `null` once the location
 * is complete. The main thread keeps MAX_IN_FLIGHT requests out, so the worker runs at most that far ahead of the
 * writes and a slow store bounds memory instead of queueing the whole location.
 */
export const answerRowBatches = (batches: Iterable<GeneratedBatch>): void => {
  const iterator = batches[Symbol.iterator]();
  answerRequests<null, PackedBatch | null>(() => {
    const next = iterator.next();
    if (next.done === true) return { answer: null };
    const packed = pack(next.value);
    return { answer: packed, transfer: transferables(packed) };
  });
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
 * The worker keeps MAX_IN_FLIGHT batches ahead; a batch counts as written when the consumer asks for the next
 * one. Ending early (return or throw in the consumer) and worker failures both stop the worker.
 */
export async function* workerRowBatches(
  options: GenerateOptions,
  script: URL = SEED_WORKER,
): AsyncGenerator<RowBatch, void, undefined> {
  const channel = openWorkerChannel<null, PackedBatch | null>(script, {
    name: 'The seed worker',
    workerData: { options } satisfies SeedWorkerInput,
    resourceLimits,
    maxInFlight: MAX_IN_FLIGHT,
  });
  const ahead: Promise<PackedBatch | null>[] = [];
  const ask = () => {
    const answer = channel.request(null);
    // Awaited in turn below; until then a failure must not count as an unhandled rejection.
    answer.catch(() => {});
    ahead.push(answer);
  };
  try {
    for (let i = 0; i < MAX_IN_FLIGHT; i++) ask();
    for (;;) {
      const next = await ahead.shift()!;
      if (next === null) return;
      yield unpack(next);
      ask();
    }
  } finally {
    await channel.close();
  }
}
