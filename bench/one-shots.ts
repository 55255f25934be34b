import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLocationGenerator } from '../src/seed/generate-location.js';
import { importGenerateOptions } from './dataset.js';
import type { Row } from './report.js';
import { DATABASE_URL, dropSchema } from './stores.js';

const ROOT = join(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);
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
    await write('inventoryEntries', batch.inventoryHistory);
  }
  for (const output of Object.values(outputs)) {
    output.end();
    await once(output, 'finish');
  }
};

/**
 * Runs one job of bench/one-shot-child.mjs on an empty store of the backend (a new file, or a new schema dropped
 * afterwards), in a process of its own, and returns what it printed.
 */
const inFreshStore = async <T>(
  backend: 'sqlite' | 'postgres',
  name: string,
  scratch: string,
  job: Record<string, unknown>,
): Promise<T> => {
  const schema = `larder_bench_${name}_${process.pid}`;
  if (backend === 'postgres') await dropSchema(schema);
  const store = backend === 'sqlite' ? { backend, path: join(scratch, `${name}.db`) } : { backend, schema };
  try {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(import.meta.dirname, 'one-shot-child.mjs')],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          LARDER_BENCH_JOB: JSON.stringify({ ...job, store }),
          LARDER_BENCH_DATABASE_URL: DATABASE_URL,
        },
        maxBuffer: 1024 * 1024,
      },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;
  } finally {
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
 * timed), then imported one kind at a time through importFiles, exclusively, as the CLI does, in a process of
 * its own.
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
    const timings = await inFreshStore<
      Record<'purchaseOrders' | 'inventoryEntries', { count: number; ms: number }>
    >(backend, 'import', scratch, { job: 'import', files });
    for (const kind of ['purchaseOrders', 'inventoryEntries'] as const) {
      const { count, ms } = timings[kind];
      const rate = count / (ms / 1000);
      const target = IMPORT_TARGETS[backend][kind];
      rows.push({
        scenario: `Import ${kind === 'purchaseOrders' ? 'purchase orders' : 'inventory entries'} (validated, ${count.toLocaleString('en-US')} records)`,
        server: backendName(backend),
        rate,
        rateUnit: 'records/s',
        target: `≥ ${target.toLocaleString('en-US')} records/s`,
        pass: rate >= target,
      });
    }
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
    const { records, ms } = await inFreshStore<{ records: number; ms: number }>(backend, 'seed', scratch, {
      job: 'seed',
      generate: importGenerateOptions(scale),
    });
    rows.push({
      scenario: `Seed (generate + write, ${records.toLocaleString('en-US')} records)`,
      server: backendName(backend),
      rate: records / (ms / 1000),
      rateUnit: 'records/s',
    });
  }
  return rows;
};
