import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, type RecordKind } from '../src/records/kinds.js';
import { pageBody } from '../src/retail/record-reader.js';
import { BENCH_LOCATION } from './dataset.js';
import { microbenchLog as log, MICROBENCH_OPTIONS, microbenchReport, microbenchStore } from './microbench.js';
import { machineLine, median } from './report.js';
import { openSpec } from './stores.js';

/**
 * The page envelope written into the room the SQLite store leaves around a page's BLOB ("framed"), against
 * copying the BLOB into a new buffer of the page's size ("copied", as before): CPU per page and what the garbage
 * collector did, in process on the bench store, the two alternating in rounds. Only the read and the envelope are
 * measured (no HTTP), so the difference is theirs alone; GC counts and pauses do not depend on how fast the
 * machine happens to be.
 *
 *   node --import tsx bench/page-envelope.ts [--pages 2000] [--rounds 6] [--backend sqlite|postgres] [--out DIR]
 *                                            [--scale 1] [--cache DIR]
 */
const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '6' },
    backend: { type: 'string', default: 'sqlite' },
    ...MICROBENCH_OPTIONS,
  },
});
const pages = Number(values.pages);
const rounds = Number(values.rounds);

if (values.backend !== 'sqlite' && values.backend !== 'postgres')
  throw new Error('--backend: sqlite or postgres');
const spec = await microbenchStore(values.backend, values);
const store = await openSpec(spec);

interface Shape {
  label: string;
  kind: RecordKind;
  body: object;
}
const SHAPES: Shape[] = [
  {
    label: 'First page, 100 purchase orders, includeArchived',
    kind: PURCHASE_ORDERS,
    body: { includeArchived: true },
  },
  {
    label: 'Inventory search, type + date, 100 entries',
    kind: INVENTORY_HISTORY,
    body: { adjustmentType: ['COUNT', 'WASTED'], updatedDateRange: { startDate: '2025-01-01' } },
  },
];

let gcMinor = 0;
let gcMajor = 0;
let gcPauseMs = 0;
let gcMaxMs = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcMajor++;
    else gcMinor++;
    gcPauseMs += entry.duration;
    gcMaxMs = Math.max(gcMaxMs, entry.duration);
  }
});
observer.observe({ entryTypes: ['gc'] });

/** GC entries reach the observer in a later task. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Answers in flight: a server holds a few page bodies until their sockets take them. */
const inFlight: Uint8Array[] = new Array(8);
const NEXT_TOKEN = 'x'.repeat(120);

const measure = async (shape: Shape, framed: boolean) => {
  const { binding: _binding, ...filter } = shape.kind.parseFilter(shape.body);
  const query = { locationId: BENCH_LOCATION, ...filter, limit: 100 };
  // Let the observer deliver what the last run's GCs left, then count this run's alone.
  await settle();
  gcMinor = 0;
  gcMajor = 0;
  gcPauseMs = 0;
  gcMaxMs = 0;
  const cpu = process.cpuUsage();
  let bytes = 0;
  for (let i = 0; i < pages; i++) {
    const page = await store.records.page(shape.kind, query);
    const body = pageBody('', NEXT_TOKEN, page.chunks, framed ? page.room : undefined);
    inFlight[i % inFlight.length] = body;
    bytes += body.byteLength;
  }
  const used = process.cpuUsage(cpu);
  await settle();
  return {
    cpuUs: (used.user + used.system) / pages,
    minorPer1000: (gcMinor * 1000) / pages,
    majorPer1000: (gcMajor * 1000) / pages,
    gcMsPer1000: (gcPauseMs * 1000) / pages,
    gcMaxMs,
    pageBytes: bytes / pages,
  };
};

const rows: string[] = [];
for (const shape of SHAPES) {
  // A warm-up of each, so both run optimized code on a warm page cache.
  await measure(shape, true);
  await measure(shape, false);
  const results: Record<'framed' | 'copied', Awaited<ReturnType<typeof measure>>[]> = {
    framed: [],
    copied: [],
  };
  for (let round = 0; round < rounds; round++)
    for (const mode of round % 2 === 0 ? (['copied', 'framed'] as const) : (['framed', 'copied'] as const)) {
      results[mode].push(await measure(shape, mode === 'framed'));
    }
  for (const mode of ['copied', 'framed'] as const) {
    const runs = results[mode];
    const of = (key: keyof (typeof runs)[number]) => median(runs.map((run) => run[key]));
    const row =
      `| ${shape.label} | ${mode} | ${Math.round(of('pageBytes')).toLocaleString('en')} | ${of('cpuUs').toFixed(0)} | ` +
      `${of('minorPer1000').toFixed(1)} | ${of('majorPer1000').toFixed(2)} | ${of('gcMsPer1000').toFixed(1)} | ` +
      `${Math.max(...runs.map((run) => run.gcMaxMs)).toFixed(2)} |`;
    log(row);
    rows.push(row);
  }
}
observer.disconnect();
await store.close();

const report = [
  '# The page envelope: written around the BLOB, or the BLOB copied',
  '',
  machineLine(),
  '',
  `Command: \`node --import tsx bench/page-envelope.ts ${process.argv.slice(2).join(' ')}\``,
  '',
  `${new Date().toISOString()} · in process, the ${values.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} bench store (scale ${values.scale}), ${pages} pages a run, ${rounds} runs of each alternating after a warm-up of each; medians over the runs (GC max: the worst pause of any run). Only the store's page read and the envelope, no HTTP.`,
  '',
  '| page | envelope | bytes | CPU µs / page | scavenges / 1000 pages | mark-compacts / 1000 pages | GC ms / 1000 pages | worst GC pause ms |',
  '|---|---|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
].join('\n');
microbenchReport(values.out, 'page-envelope.md', report);
