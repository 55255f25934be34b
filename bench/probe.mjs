import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Loaded into every process of a Larder under test (`--import`; the cluster workers of `larder serve --workers
 * N` inherit the primary's execArgv): samples the event loop's delay at 1 ms resolution. On SIGUSR2 it writes what it saw since the last
 * signal (p99, max, RSS) to LARDER_BENCH_PROBE_DIR/<pid>.json with a generation count, then starts afresh; the
 * bench signals before and after each scenario. A file, not IPC: cluster workers have no channel to the bench.
 */
const dir = process.env.LARDER_BENCH_PROBE_DIR;
if (dir !== undefined && dir !== '') {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let generation = 0;
  const dump = () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const report = {
      pid: process.pid,
      worker: process.env.NODE_UNIQUE_ID !== undefined,
      generation,
      p99: ms(delay.percentile(99)),
      max: ms(delay.max),
      samples: delay.count,
      rss: process.memoryUsage().rss,
    };
    // Renamed into place, so the bench never reads half a file.
    writeFileSync(join(dir, `${process.pid}.tmp`), JSON.stringify(report));
    renameSync(join(dir, `${process.pid}.tmp`), join(dir, `${process.pid}.json`));
  };
  dump();
  process.on('SIGUSR2', () => {
    generation++;
    dump();
    delay.reset();
  });
}
