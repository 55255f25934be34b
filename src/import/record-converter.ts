import type { Worker } from 'node:worker_threads';
import { siblingModule, startWorker } from '../shared/start-worker.js';
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
  let worker: Worker | undefined;
  let converted = 0;
  let failure: { error: unknown } | undefined;
  const waiting: { resolve: (batch: ConvertedBatch) => void; reject: (error: unknown) => void }[] = [];

  const fail = (error: unknown) => {
    failure ??= { error };
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  };

  const start = (): Worker => {
    const started = startWorker(script, { resourceLimits });
    started.on('message', (batch: ConvertedBatch) => waiting.shift()?.resolve(batch));
    started.on('error', fail);
    started.on('exit', (code) => fail(new Error(`The import's record worker stopped (exit code ${code}).`)));
    return started;
  };

  return {
    prepare: () => {
      if (inWorker) worker ??= start();
    },
    convert: (batch) => {
      if (failure !== undefined) return Promise.reject(failure.error);
      if (converted++ === 0 || !inWorker) return new Promise((resolve) => resolve(convertBatch(batch)));
      worker ??= start();
      const running = worker;
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        running.postMessage(batch);
      });
    },
    close: async () => {
      fail(new Error('The import ended.'));
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
};
