import { workerData } from 'node:worker_threads';
import { createLocationGenerator } from './generate-location.js';
import { answerRowBatches, type SeedWorkerInput } from './row-batches.js';

/** Worker entry of `workerRowBatches`: generates one location, a batch per request. */
const { options } = workerData as SeedWorkerInput;
answerRowBatches(createLocationGenerator(options).batches());
