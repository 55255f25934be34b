import { parentPort } from 'node:worker_threads';
import { convertBatch, type RawBatch } from './convert-batch.js';

/** Converts batches in the order they come, answering each with its ConvertedBatch. */
parentPort?.on('message', (batch: RawBatch) => {
  parentPort?.postMessage(convertBatch(batch));
});
