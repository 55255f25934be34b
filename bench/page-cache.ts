import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedStore } from '../src/seed/seed-store.js';
import { DEFAULT_SQLITE_CACHE_MB } from '../src/shared/limits.js';
import { createBenchClient, logIn, startLarderProcess } from './larder-process.js';
import { measure } from './load.js';
import { machineLine } from './report.js';
import { generateOptions, sampleEntryIds } from './scale.js';
import { openSpec } from './stores.js';
import { parseToolArgs, usageError } from './tool-usage.mjs';

/**
 * SQLite's page cache against GET by id on one large store (`--sqlite-cache-mb`): the scale run's GET (2,000
 * random inventory entries of one location, cycled in order, 50 connections), measured with each cache size in
 * turn, `--rounds` times, on one kept store, after one unmeasured pass over the ids. Beside each figure, what the
 * server read through read(2)/pread(2) (/proc/PID/io `rchar`: the OS page cache as well as the disk, and its
 * sockets) and from the disk itself (`read_bytes`), per request: a cache too small for the pages the GETs come
 * back to re-reads them every time.
 *
 * The store (about 14 GB at 10M entries) is kept in bench/.cache/page-cache-ENTRIES.db (or `--cache DIR`) between
 * runs.
 */
const USAGE =
  'usage: node --import tsx bench/page-cache.ts [--entries 10000000] [--cache-mb 64,128] [--rounds 3] [--duration 10] [--connections 50] [--cache DIR] [--out DIR]';
const { values } = parseToolArgs(USAGE, {
  options: {
    entries: { type: 'string', default: '10000000' },
    'cache-mb': { type: 'string', default: `${DEFAULT_SQLITE_CACHE_MB},128` },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    cache: { type: 'string' },
    out: { type: 'string' },
  },
});
const whole = (name: string, raw: string): number => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    usageError(USAGE, `--${name} takes whole positive numbers, not ${raw}`);
  return value;
};
const entries = whole('entries', values.entries);
const caches = values['cache-mb'].split(',').map((raw) => whole('cache-mb', raw));
const rounds = whole('rounds', values.rounds);
const duration = whole('duration', values.duration);
const connections = whole('connections', values.connections);

const cacheDir = values.cache ?? join(import.meta.dirname, '.cache');
mkdirSync(cacheDir, { recursive: true });
const path = join(cacheDir, `page-cache-${entries}.db`);
const metaPath = `${path}.json`;

/** The kept store and what the runs need of it: its location, a client of the bench's, and the ids to cycle. */
const ensure = async (): Promise<{
  location: string;
  client: { clientId: string; clientSecret: string };
  ids: string[];
}> => {
  if (existsSync(path) && existsSync(metaPath)) return JSON.parse(readFileSync(metaPath, 'utf8'));
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  process.stdout.write(`building a one-location store of ${entries.toLocaleString('en-US')} entries …\n`);
  const store = await openSpec({ backend: 'sqlite', path: building });
  const seeded = await seedStore(store, { ...generateOptions(entries, 1), locations: 1, exclusive: true });
  const client = await createBenchClient(store);
  await store.close();
  const location = seeded.locations[0]!.id;
  const ids = await sampleEntryIds({ backend: 'sqlite', path: building }, location);
  renameSync(building, path);
  const meta = { location, client, ids };
  writeFileSync(metaPath, JSON.stringify(meta));
  return meta;
};

const io = (pid: number): { rchar: number; readBytes: number } => {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)![1]);
  return { rchar: field('rchar'), readBytes: field('read_bytes') };
};

const meta = await ensure();
const rows: string[] = [];
for (let round = 1; round <= rounds; round++)
  for (const cacheMb of caches) {
    const larder = await startLarderProcess({
      spec: { backend: 'sqlite', path, cacheMb },
      workers: 1,
      serveArgs: [],
      cli: false,
      cpuProf: undefined,
    });
    try {
      const token = await logIn(larder.child.url, meta.client);
      await larder.probe.reset();
      const [pid] = larder.probe.pids();
      const load = {
        method: 'GET' as const,
        paths: meta.ids.map((id) => `/v1/inventoryHistory/${id}`),
        headers: { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': meta.location },
      };
      // One pass over the ids first, unmeasured: a cache that holds their pages then reads none of them, however
      // short the run (a 1 s run of the smoke was mostly that first pass).
      await measure(larder.child.url, load, { connections, amount: meta.ids.length });
      const before = io(pid!);
      const m = await measure(larder.child.url, load, { connections, duration });
      const after = io(pid!);
      const requests = m.requestsPerSecond * duration;
      const { total: rss } = await larder.probe.rss();
      const row = `| ${round} | ${cacheMb} | ${Math.round(m.requestsPerSecond).toLocaleString('en-US')} | ${m.p50} / ${m.p99} | ${((after.rchar - before.rchar) / requests / 1024).toFixed(1)} | ${((after.readBytes - before.readBytes) / requests / 1024).toFixed(2)} | ${Math.round(rss / 2 ** 20)} | ${m.failures} |`;
      process.stdout.write(`${row}\n`);
      rows.push(row);
    } finally {
      await larder.child.stop();
    }
  }
const text = [
  '# Larder bench: SQLite page cache against GET by id',
  '',
  `Machine: ${machineLine()}`,
  '',
  `Command: \`node --import tsx bench/page-cache.ts ${process.argv.slice(2).join(' ')}\` · ${new Date().toISOString()} · ${connections} connections · ${duration} s per run`,
  '',
  `One location of ${entries.toLocaleString('en-US')} entries (the scale run's generator); GET of 2,000 random entries cycled in order, each cache size in turn. "Read" is what the server read through read(2)/pread(2) per request, in KiB (the OS page cache and the disk, and its sockets); "from disk" the part that reached the disk.`,
  '',
  '| Round | Cache MiB | req/s | p50 / p99 ms | Read KiB a request | From disk KiB | RSS MB | Failures |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
].join('\n');
if (values.out !== undefined) {
  mkdirSync(values.out, { recursive: true });
  writeFileSync(join(values.out, 'page-cache.md'), text);
}
process.stdout.write(text);
