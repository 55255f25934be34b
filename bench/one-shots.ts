import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { importFiles } from '../src/import/import-files.js';
import { createPostgresStore } from '../src/storage/postgres/postgres-store.js';
import { createSqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import type { Store } from '../src/storage/store.js';
import { batches, inventoryEntryAt, purchaseOrderAt } from './dataset.js';
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
  options: { log: (line: string) => void; build: boolean },
): Promise<Row> => {
  const scenario = 'Cold start to first answered request (existing SQLite store)';
  // Cold start is the shipped CLI (dist/), so it is rebuilt from the current source first.
  if (options.build) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
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

const writeNdjson = async <T>(path: string, count: number, make: (n: number, count: number) => T) => {
  const out = createWriteStream(path);
  for (const batch of batches(count, make)) {
    if (!out.write(`${batch.map((record) => JSON.stringify(record)).join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
};

const IMPORT_TARGETS = {
  sqlite: { purchaseOrders: 15_000, inventoryEntries: 50_000 },
  postgres: { purchaseOrders: 10_000, inventoryEntries: 30_000 },
} as const;

/**
 * `larder import` throughput into an empty store, validation included: NDJSON files are written first (not
 * timed), then imported one kind at a time through importFiles, as the CLI does.
 */
export const measureImports = async (
  backends: readonly ('sqlite' | 'postgres')[],
  scale: number,
  scratch: string,
  log: (line: string) => void,
): Promise<Row[]> => {
  const counts = {
    purchaseOrders: Math.max(100, Math.round(20_000 * scale)),
    inventoryEntries: Math.max(1000, Math.round(100_000 * scale)),
  };
  const files = { purchaseOrders: join(scratch, 'po.ndjson'), inventoryEntries: join(scratch, 'ih.ndjson') };
  await writeNdjson(files.purchaseOrders, counts.purchaseOrders, purchaseOrderAt);
  await writeNdjson(files.inventoryEntries, counts.inventoryEntries, inventoryEntryAt);
  const rows: Row[] = [];
  for (const backend of backends) {
    log(`import into ${backend} …`);
    const schema = `larder_bench_import_${process.pid}`;
    const store: Store =
      backend === 'sqlite'
        ? await createSqliteStore({ path: join(scratch, 'import.db') })
        : await (async () => {
            await dropSchema(schema);
            return createPostgresStore({ databaseUrl: DATABASE_URL, schema, migrate: true });
          })();
    try {
      for (const kind of ['purchaseOrders', 'inventoryEntries'] as const) {
        const started = performance.now();
        const result = await importFiles(store, {
          locationId: 'bench-import',
          ...(kind === 'purchaseOrders'
            ? { purchaseOrders: { path: files.purchaseOrders } }
            : { inventoryHistory: { path: files.inventoryEntries } }),
        });
        const seconds = (performance.now() - started) / 1000;
        if (!result.committed) throw new Error(`bench import failed: ${JSON.stringify(result.problems[0])}`);
        const rate = result.counts[kind] / seconds;
        const target = IMPORT_TARGETS[backend][kind];
        rows.push({
          scenario: `Import ${kind === 'purchaseOrders' ? 'purchase orders' : 'inventory entries'} (validated, ${counts[kind].toLocaleString('en-US')} records)`,
          server: backend === 'sqlite' ? 'SQLite' : 'PostgreSQL',
          rate,
          rateUnit: 'records/s',
          target: `≥ ${target.toLocaleString('en-US')} records/s`,
          pass: rate >= target,
        });
      }
    } finally {
      await store.close();
      if (backend === 'postgres') await dropSchema(schema);
    }
  }
  return rows;
};
