import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles } from '../src/import/import-files.js';
import { createLocationGenerator } from '../src/seed/generate-location.js';
import { seedStore } from '../src/seed/seed-store.js';
import { createPostgresStore } from '../src/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../src/storage/store.js';
import { importGenerateOptions } from './dataset.js';
import type { Row } from './report.js';
import { DATABASE_URL, dropSchema } from './stores.js';

const ROOT = join(import.meta.dirname, '..');
const CLI = join(ROOT, 'bin', 'larder.js');

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds from spawning `larder serve` on an existing store to its first 200 on /healthz. */
const coldStartOnce = async (dbPath: string): Promise<number> => {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--db', dbPath, '--port', '0', '--no-demo'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match !== null) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`larder serve exited (${code}): ${output}`)));
    });
    for (;;) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
};

export const measureColdStart = async (
  dbPath: string,
  options: { log: (line: string) => void },
): Promise<Row> => {
  const scenario = 'Cold start to first answered request (existing SQLite store)';
  // Cold start is the shipped CLI (dist/, which the bench rebuilt before it started).
  if (!existsSync(join(ROOT, 'dist', 'cli', 'commands', 'serve-command.js')))
    return { scenario, server: 'larder serve', note: 'skipped: dist/ has no serve command (npm run build)' };
  options.log('cold start …');
  const times: number[] = [];
  try {
    for (let i = 0; i < 3; i++) times.push(await coldStartOnce(dbPath));
  } catch (error) {
    return { scenario, server: 'larder serve', pass: false, note: (error as Error).message.slice(0, 200) };
  }
  const ms = median(times);
  return {
    scenario,
    server: 'larder serve',
    value: { amount: ms, unit: 'ms' },
    target: '≤ 1,000 ms',
    pass: ms <= 1000,
    note: `median of 3: ${times.map((t) => Math.round(t)).join(', ')} ms`,
  };
};

/** One NDJSON file per record kind from the demo generator. */
const writeNdjson = async (scale: number, files: { purchaseOrders: string; inventoryEntries: string }) => {
  const outputs = {
    purchaseOrders: createWriteStream(files.purchaseOrders),
    inventoryEntries: createWriteStream(files.inventoryEntries),
  };
  const write = async (kind: keyof typeof outputs, records: readonly unknown[]) => {
    if (records.length === 0) return;
    const text = `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
    if (!outputs[kind].write(text)) await once(outputs[kind], 'drain');
  };
  for (const batch of createLocationGenerator(importGenerateOptions(scale)).batches()) {
    await write('purchaseOrders', batch.purchaseOrders);
    await write('inventoryEntries', batch.inventory);
  }
  for (const output of Object.values(outputs)) {
    output.end();
    await once(output, 'finish');
  }
};

/** Runs `work` on an empty store of the backend (a new file, or a new schema dropped afterwards). */
const withFreshStore = async <T>(
  backend: 'sqlite' | 'postgres',
  name: string,
  scratch: string,
  work: (store: Store) => Promise<T>,
): Promise<T> => {
  const schema = `larder_bench_${name}_${process.pid}`;
  if (backend === 'postgres') await dropSchema(schema);
  const store =
    backend === 'sqlite'
      ? await createSqliteStore({ path: join(scratch, `${name}.db`) })
      : await createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
  try {
    return await work(store);
  } finally {
    await store.close();
    if (backend === 'postgres') await dropSchema(schema);
  }
};

const backendName = (backend: 'sqlite' | 'postgres') => (backend === 'sqlite' ? 'SQLite' : 'PostgreSQL');

const IMPORT_TARGETS = {
  sqlite: { purchaseOrders: 15_000, inventoryEntries: 50_000 },
  postgres: { purchaseOrders: 10_000, inventoryEntries: 30_000 },
} as const;

/**
 * `larder import` throughput into an empty store, validation included: NDJSON files are written first (not
 * timed), then imported one kind at a time through importFiles, exclusively, as the CLI does.
 */
export const measureImports = async (
  backends: readonly ('sqlite' | 'postgres')[],
  scale: number,
  scratch: string,
  log: (line: string) => void,
): Promise<Row[]> => {
  const files = { purchaseOrders: join(scratch, 'po.ndjson'), inventoryEntries: join(scratch, 'ih.ndjson') };
  await writeNdjson(scale, files);
  const rows: Row[] = [];
  for (const backend of backends) {
    log(`import into ${backend} …`);
    await withFreshStore(backend, 'import', scratch, async (store) => {
      for (const kind of ['purchaseOrders', 'inventoryEntries'] as const) {
        const started = performance.now();
        const result = await importFiles(store, {
          locationId: 'bench-import',
          exclusive: true,
          ...(kind === 'purchaseOrders'
            ? { purchaseOrders: { path: files.purchaseOrders } }
            : { inventoryHistory: { path: files.inventoryEntries } }),
        });
        const seconds = (performance.now() - started) / 1000;
        if (!result.committed) throw new Error(`bench import failed: ${JSON.stringify(result.problems[0])}`);
        const rate = result.counts[kind] / seconds;
        const target = IMPORT_TARGETS[backend][kind];
        rows.push({
          scenario: `Import ${kind === 'purchaseOrders' ? 'purchase orders' : 'inventory entries'} (validated, ${result.counts[kind].toLocaleString('en-US')} records)`,
          server: backendName(backend),
          rate,
          rateUnit: 'records/s',
          target: `≥ ${target.toLocaleString('en-US')} records/s`,
          pass: rate >= target,
        });
      }
    });
  }
  return rows;
};

/** `larder seed` throughput: generating and writing one location into an empty store, records of both kinds. */
export const measureSeed = async (
  backends: readonly ('sqlite' | 'postgres')[],
  scale: number,
  scratch: string,
  log: (line: string) => void,
): Promise<Row[]> => {
  const rows: Row[] = [];
  for (const backend of backends) {
    log(`seed into ${backend} …`);
    await withFreshStore(backend, 'seed', scratch, async (store) => {
      const result = await seedStore(store, {
        ...importGenerateOptions(scale),
        locations: 1,
        exclusive: true,
      });
      const records = result.locations.reduce((sum, l) => sum + l.purchaseOrders + l.inventoryEntries, 0);
      rows.push({
        scenario: `Seed (generate + write, ${records.toLocaleString('en-US')} records)`,
        server: backendName(backend),
        rate: records / (result.ms / 1000),
        rateUnit: 'records/s',
      });
    });
  }
  return rows;
};
