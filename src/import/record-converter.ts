import { siblingModule } from '../shared/start-worker.js';
import { openWorkerChannel, type WorkerChannel } from '../shared/worker-channel.js';
import { type ConvertedBatch, convertBatch, type RawBatch } from './convert-batch.js';

export const CONVERT_WORKER = siblingModule(import.meta.url, 'convert-worker');

/**
 * Parsed records die as soon as they are serialised: a roomier young generation keeps them from being promoted
 * (100k purchase orders: 21.7k/s by default, 20.7k at 32 MB, 25.9k at 64 MB, no better at 192 MB).
 */
const resourceLimits = { maxYoungGenerationSizeMb: 64 };

export interface RecordConverter {
  /** Starts the worker ahead of need: more batches will follow. */
  prepare(): void;
  /** Answers come in the order the batches were given. */
  convert(batch: RawBatch): Promise<ConvertedBatch>;
  /** Stops the worker, failing whatever is still being converted. */
  close(): Promise<void>;
}

/**
 * Converts batches in a worker thread: parsing, validating and serialising records is most of an import's CPU,
 * and off the main thread it overlaps reading the file and writing the store (SQLite writes on the main thread).
 * The first batch is converted here, meanwhile the worker starts (if `prepare` said more will follow): an import
 * of one batch or less starts no worker.
 */
export const createRecordConverter = ({
  inWorker = true,
  script = CONVERT_WORKER,
}: {
  /** False: every batch is converted on this thread. */
  inWorker?: boolean;
  script?: URL;
} = {}): RecordConverter => {
  let channel: WorkerChannel<RawBatch, ConvertedBatch> | undefined;
  let converted = 0;
  let closed = false;
  const open = () =>
    openWorkerChannel<RawBatch, ConvertedBatch>(script, {
      name: "The import's record worker",
      resourceLimits,
      // The importer keeps a few batches ahead (import-files.ts); this never holds it back.
      maxInFlight: 16,
    });
  return {
    prepare: () => {
      if (inWorker && !closed) channel ??= open();
    },
    convert: (batch) => {
      if (closed) return Promise.reject(new Error('The import ended.'));
      if (converted++ === 0 || !inWorker) return new Promise((resolve) => resolve(convertBatch(batch)));
      channel ??= open();
      return channel.request(batch);
    },
    close: async () => {
      closed = true;
      await channel?.close();
      channel = undefined;
    },
  };
};
