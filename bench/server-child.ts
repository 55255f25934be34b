import { startServer } from '../src/http/server.js';
import { systemClock } from '../src/shared/clock.js';
import { createJsonLogger } from '../src/shared/logger.js';
import { openSpec, type StoreSpec } from './stores.js';

/**
 * Larder under test, alone in its process: the load generator runs elsewhere, and the RSS it reports is
 * Larder's own. Reports `{ url }` once serving, answers `rss` with its memory usage as the run left it and after a full GC, and exits (writing a
 * CPU profile when started with --cpu-prof) when the parent disconnects.
 */
const spec = JSON.parse(process.env['LARDER_BENCH_STORE'] ?? '') as StoreSpec;
const store = await openSpec(spec);
const server = await startServer({
  store,
  clock: systemClock,
  logger: createJsonLogger(),
  config: { host: '127.0.0.1', port: 0, tokenTtlSeconds: 86_400, trustProxy: false },
});
process.on('message', (message) => {
  if (message === 'rss') {
    const before = process.memoryUsage();
    // Started with --expose-gc: the live set, next to what the process happens to hold after the load.
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ rss: { before, after: process.memoryUsage() } });
  }
});
process.once('disconnect', () => {
  void server
    .close()
    .then(() => store.close())
    .finally(() => process.exit(0));
});
process.send?.({ url: server.url });
