import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import { INVENTORY_HISTORY, PURCHASE_ORDERS, type RecordKind } from '../src/records/kinds.js';
import { ensureStore, type StoreSpec } from './stores.js';

/**
 * What the in-process microbenchmarks (page-statement, page-envelope, covering-index) share: their `--out`,
 * `--scale` and `--cache` options, for `parseArgs`, the bench store they read, built on first use, and where their
 * report goes.
 */
export const MICROBENCH_OPTIONS = {
  out: { type: 'string' },
  // The smoke test's tiny store: a scale and a scratch directory of its own.
  scale: { type: 'string', default: '1' },
  cache: { type: 'string' },
} as const;

export const microbenchLog = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export const microbenchStore = (
  backend: StoreSpec['backend'],
  values: { scale: string; cache?: string | undefined },
): Promise<StoreSpec> =>
  ensureStore(backend, Number(values.scale), {
    cacheDir: values.cache ?? join(import.meta.dirname, '.cache'),
    fresh: false,
    log: microbenchLog,
  });

/**
 * What the SQLite statement microbenchmarks (page-statement, page-statement-parts, covering-index) share: their
 * options (`--runs` statements a run, `--rounds` runs of each form, and the ones above) parsed with these defaults,
 * the SQLite bench store's path, and a timer answering µs per statement over one run.
 */
export const statementBench = async (defaults: { runs: number; rounds: number }) => {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: String(defaults.runs) },
      rounds: { type: 'string', default: String(defaults.rounds) },
      ...MICROBENCH_OPTIONS,
    },
  });
  const runs = Number(values.runs);
  const spec = await microbenchStore('sqlite', values);
  if (spec.backend !== 'sqlite') throw new Error('the SQLite bench store');
  const time = (statement: Database.Statement, params: unknown[]): number => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) statement.get(...params);
    return Number(process.hrtime.bigint() - start) / runs / 1000;
  };
  return { values, runs, rounds: Number(values.rounds), path: spec.path, time };
};

/** Prints a microbenchmark's report, and writes it to `<out>/<file>` when `--out` was given. */
export const microbenchReport = (out: string | undefined, file: string, report: string): void => {
  if (out !== undefined) {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, file), report);
  }
  process.stdout.write(report);
};

/** The search shapes the page-statement microbenchmarks run, on the bench store's demo location. */
export const PAGE_SHAPES: { label: string; kind: RecordKind; body: object }[] = [
  {
    label: 'First page, 100 purchase orders, includeArchived',
    kind: PURCHASE_ORDERS,
    body: { includeArchived: true },
  },
  { label: 'First page, archived left out', kind: PURCHASE_ORDERS, body: {} },
  { label: 'First page, one status', kind: PURCHASE_ORDERS, body: { purchaseOrderStatuses: ['ORDERED'] } },
  {
    label: 'Inventory search, two types + one month',
    kind: INVENTORY_HISTORY,
    body: {
      adjustmentType: ['RECEIVE', 'WASTED'],
      updatedDateRange: { startDate: '2025-04-01', endDate: '2025-04-30' },
    },
  },
  { label: 'Inventory search, unfiltered', kind: INVENTORY_HISTORY, body: {} },
];
