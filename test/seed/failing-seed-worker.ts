import { parentPort, workerData } from 'node:worker_threads';
import type { GeneratedBatch } from '../../src/seed/generate-location.js';
import { createLocationGenerator } from '../../src/seed/generate-location.js';
import { postRowBatches, type SeedWorkerInput } from '../../src/seed/row-batches.js';

/** The seed worker with a generator that throws after two batches, once their rows have been written. */
const { options, inFlight } = workerData as SeedWorkerInput;

function* breaking(): Generator<GeneratedBatch, void, undefined> {
  let count = 0;
  for (const batch of createLocationGenerator(options).batches()) {
    if (++count > 2) throw new Error('generator broke');
    yield batch;
  }
}

postRowBatches(parentPort!, breaking(), inFlight);
