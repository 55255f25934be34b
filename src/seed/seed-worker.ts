import { parentPort, workerData } from 'node:worker_threads';
import { createLocationGenerator } from './generate-location.js';
import { postRowBatches, type SeedWorkerInput } from './row-batches.js';

/** Worker entry of `workerRowBatches`: generates one location and posts its rows. */
const { options, inFlight } = workerData as SeedWorkerInput;
postRowBatches(parentPort!, createLocationGenerator(options).batches(), inFlight);
