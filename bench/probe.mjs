import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/**
 * Loaded into every process of a server under test, Larder's and the raw baseline's (`--import`; the cluster
 * workers of `larder serve --workers N` inherit the primary's execArgv): samples the event loop's delay at 1 ms
 * resolution. On SIGUSR2 it writes what it saw since the last signal (p99, max, RSS) to
 * LARDER_BENCH_PROBE_DIR/<pid>.json with a generation count, then starts afresh; the bench signals before and
 * after each scenario. A file, not IPC: cluster workers have no channel to the bench.
 *
 * Node's histogram records the whole time between two ticks of its sampling timer, so an idle loop reads about
 * the resolution itself (p50 1.1 ms here); the probe reports the time beyond it, which is how long the loop was
 * held.
 *
 * It also keeps the longest garbage-collection pause of the stretch (`gc` performance entries), so a reader can
 * tell a loop held by a collection from one held by a request.
 */
const dir = process.env.LARDER_BENCH_PROBE_DIR;
if (dir !== undefined && dir !== '') {
  const resolutionMs = 1;
  const delay = monitorEventLoopDelay({ resolution: resolutionMs });
  delay.enable();
  let gcMax = 0;
  const gcPause = (entries) => {
    for (const entry of entries) gcMax = Math.max(gcMax, entry.duration);
  };
  const gc = new PerformanceObserver((list) => gcPause(list.getEntries()));
  gc.observe({ entryTypes: ['gc'] });
  let generation = 0;
  const dump = () => {
    // Entries reach the observer on a later turn: take the ones still queued, so each belongs to its stretch.
    gcPause(gc.takeRecords());
    const ms = (ns) => Math.max(0, Math.round((ns - resolutionMs * 1e6) / 1e4) / 100);
    const report = {
      pid: process.pid,
      worker: process.env.NODE_UNIQUE_ID !== undefined,
      generation,
      p99: ms(delay.percentile(99)),
      max: ms(delay.max),
      gcMax: Math.round(gcMax * 100) / 100,
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
    gcMax = 0;
  });
}
