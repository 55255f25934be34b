import { parseRateLimit } from '../dist/middleware/rate-limit/rate-windows.js';
import { startServer } from '../dist/server/server.js';
import { systemClock } from '../dist/shared/clock.js';
import { createLogger } from '../dist/shared/logger.js';
import { createMetrics } from '../dist/shared/metrics.js';
import { openSpecStore } from './open-spec.mjs';

/**
 * Larder under test, alone in its process and run as `larder serve` runs: compiled JavaScript from dist/, with
 * no TypeScript loader (tsx keeps a loader thread and esbuild, ~35 MB of RSS that is not Larder's). The load
 * generator runs elsewhere, so the RSS it reports is Larder's own. Reports `{ url }` once serving, answers `rss`
 * with its memory usage as the run left it and after a full GC, and exits (writing a CPU profile when started
 * with --cpu-prof) when the parent disconnects. Answers `cpu` with its CPU time so far. The store spec is bench/stores.ts's StoreSpec.
 */
const spec = JSON.parse(process.env.LARDER_BENCH_STORE ?? '');
/**
 * LARDER_BENCH_RATE_LIMIT prices the rate limits: `platform-high` is the platform's two windows (1 s and 15 min)
 * with limits no run reaches, so every request is counted and carries the limit state but none is refused; any
 * other value is a --rate-limit value (`platform`, `5/s,100/15m`).
 */
const rateLimitOf = (option) => {
  if (option === undefined || option === '') return undefined;
  const rateLimit =
    option === 'platform-high'
      ? [
          { limit: 1_000_000_000, windowMs: 1000 },
          { limit: 1_000_000_000_000, windowMs: 900_000 },
        ]
      : parseRateLimit(option);
  if (rateLimit === undefined)
    throw new Error(`LARDER_BENCH_RATE_LIMIT: not a --rate-limit value: ${option}`);
  return rateLimit;
};
/** One server, configured by the LARDER_BENCH_* variables of `env`. */
const serve = (env) => {
  const rateLimit = rateLimitOf(env.LARDER_BENCH_RATE_LIMIT);
  return startServer({
    store,
    clock: systemClock,
    // The access log is priced on its own (LARDER_BENCH_ACCESS_LOG=1); otherwise only warnings, as --log-level warn.
    logger: createLogger({ level: env.LARDER_BENCH_ACCESS_LOG === '1' ? 'info' : 'warn' }),
    config: {
      host: '127.0.0.1',
      port: 0,
      tokenTtlSeconds: 86_400,
      trustProxy: false,
      // LARDER_BENCH_SANDBOX=1: the admin API, the virtual clock and the request journal on, to price them.
      ...(env.LARDER_BENCH_SANDBOX === '1' ? { adminToken: 'bench-admin-token-0123456789' } : {}),
      // LARDER_BENCH_JOURNAL_SIZE=N: the journal's ring size, as --journal-size N.
      ...(env.LARDER_BENCH_JOURNAL_SIZE === undefined
        ? {}
        : { journalSize: Number(env.LARDER_BENCH_JOURNAL_SIZE) }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
      // LARDER_BENCH_METRICS=1: requests measured into prom-client, as with --metrics-port (the scrape is not run).
      ...(env.LARDER_BENCH_METRICS === '1' ? { metrics: createMetrics() } : {}),
    },
  });
};
const store = await openSpecStore(spec);
/**
 * LARDER_BENCH_CONFIGS (the cost run's --same-process): a JSON list of variable sets, one server each, all in this
 * process, so a comparison of configurations is not also a comparison of processes. Otherwise one server.
 */
const configs = process.env.LARDER_BENCH_CONFIGS;
const servers = [];
for (const env of configs === undefined ? [process.env] : JSON.parse(configs)) servers.push(await serve(env));
const server = servers[0];
process.on('message', (message) => {
  // The server's CPU time so far (user + system, µs): the cost bench (bench/cost.ts) reads it around a fixed load.
  if (message === 'cpu') {
    process.send?.({ cpu: process.cpuUsage() });
  }
  if (message === 'pid') {
    process.send?.({ pid: process.pid });
  }
  if (message === 'rss') {
    const before = process.memoryUsage();
    // Started with --expose-gc: the live set, next to what the process happens to hold after the load.
    globalThis.gc?.();
    process.send?.({ rss: { before, after: process.memoryUsage() } });
  }
});
process.once('disconnect', () => {
  void Promise.all(servers.map((each) => each.stop()))
    .then(() => store.close())
    .finally(() => process.exit(0));
});
process.send?.({ url: server.url, urls: servers.map((each) => each.url) });
