import { setFlagsFromString } from 'node:v8';

/** V8's old-generation growing factor for a serving process, as `1 + percent / 100`: 5×. */
export const HEAP_GROWING_PERCENT = 400;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

let applied: string | undefined;

/**
 * Fixes V8's heap growing factor for the process. Each retail page is one buffer outside V8's heap (the SQLite
 * BLOB, 60–370 KB), and those buffers force a scavenge every few pages. With Larder's small live heap (~15 MB),
 * V8's own dynamic factor sets the old generation's limit only a few MB above it, and under page load that
 * limit counts as reached right after each of those scavenges: a mark-compact every 50–100 ms, 300 or more in
 * a bench run, each pausing the loop 2–17 ms and together costing up to a quarter of the page throughput at one
 * connection (`bench/results/2026-11-27-heap-growth`). A fixed 5× keeps the limit near 75 MB for that heap:
 * three mark-compacts in the same run, for about 30 MB more RSS. V8 reads the flag at every GC, so setting it
 * after start-up takes effect (measured: the same GC counts as with the flag on the command line). An operator's
 * own `node --heap-growing-percent=N` wins.
 */
export const tuneHeapGrowth = (execArgv: readonly string[] = process.execArgv): string | undefined => {
  if (execArgv.some((arg) => FLAG.test(arg))) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  setFlagsFromString(flag);
  applied = flag;
  return flag;
};

/** The flag this process set, if any (for tests and diagnostics). */
export const appliedHeapGrowth = (): string | undefined => applied;
