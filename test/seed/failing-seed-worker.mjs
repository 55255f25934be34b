import { workerData } from 'node:worker_threads';
import { createLocationGenerator } from '../../dist/seed/generate-location.js';
import { answerRowBatches } from '../../dist/seed/row-batches.js';

/**
 * The seed worker with a generator that throws after two batches, once their rows have been written. Compiled
 * code, as every worker runs (src/shared/start-worker.ts).
 */
const { options } = workerData;

function* breaking() {
  let count = 0;
  for (const batch of createLocationGenerator(options).batches()) {
    if (++count > 2) throw new Error('generator broke');
    yield batch;
  }
}

answerRowBatches(breaking());
