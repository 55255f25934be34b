import { parentPort } from 'node:worker_threads';

// A record worker that breaks on its first batch.
parentPort?.on('message', () => {
  throw new Error('worker broke');
});
