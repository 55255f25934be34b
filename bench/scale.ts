import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { importFiles } from '../src/import/import-files.js';
import { INVENTORY_HISTORY } from '../src/records/kinds.js';
import { createPageTokens } from '../src/retail/page-token.js';
import { seedStore } from '../src/seed/seed-store.js';
import { DEFAULT_SQLITE_CACHE_MB } from '../src/shared/limits.js';
import { createBenchClient, logIn, startLarderProcess } from './larder-process.js';
import { type Measurement, measure } from './load.js';
import type { BenchOptions } from './options.js';
import { machineLine, median } from './report.js';
import { DATABASE_URL, dropSchema, openSpec, type StoreSpec } from './stores.js';
import { lineChart } from './svg-chart.js';
import { writeUnicodeFiles } from './unicode.js';

/**
 * Cost against size (`npm run bench -- --scale`): stores of 10k, 100k, 1M and 10M inventory entries (purchase
 * orders in the demo's proportion, about one per 11), all in one location or spread over 100, per backend. At
 * each size: the import rate of a fixed file into the store as it stands, GET by id and first and deep search
 * pages (unfiltered and filtered) p50/p99, the server's RSS and event-loop delay, and the database's size on disk.
 * Results go to scale.md, scale.json and scale.svg beside latest.md.
 */

/** Inventory entries per demo-generator scale unit (bench scale 1: 1,155,079 entries, 99,943 orders). */
const ENTRIES_PER_UNIT = 1_155_000;
const SIZES = [10_000, 100_000, 1_000_000, 10_000_000];
/** The smoke's: two small sizes, so that it measures a control too (the path the first 10M run found broken). */
const SMOKE_SIZES = [2_000, 10_000];
const layouts = (smoke: boolean) =>
  [
    { key: 'one', label: 'one location', locations: 1 },
    // The smoke only proves the run works: a few locations, not a hundred.
    { key: 'spread', label: `spread over ${smoke ? 4 : 100} locations`, locations: smoke ? 4 : 100 },
  ] as const;
type Layout = ReturnType<typeof layouts>[number];
const PAGE_SIZE = 100;
const ROTATION = 2000;
/**
 * The import measured at every size: files of the non-ASCII generator at `scale` (about 2,000 orders at 0.1), imported
 * `runs` times. The smoke, which only proves the run works, imports a tenth of that once.
 */
const importing = (smoke: boolean) => (smoke ? { scale: 0.01, runs: 1 } : { scale: 0.1, runs: 3 });

export interface ScalePoint {
  backend: 'sqlite' | 'postgres';
  layout: 'one' | 'spread';
  locations: number;
  entries: number;
  purchaseOrders: number;
  seedRate: number;
  importRate: number;
  get: Measurement;
  firstPage: Measurement;
  deepPage: Measurement;
  firstPageFiltered: Measurement;
  deepPageFiltered: Measurement;
  rssMb: number;
  loopDelayMax: number;
  diskMb: number;
  /**
   * Set on a control: the smallest store measured again right after the store of this many entries, so that growth
   * can be read against the machine as it was then (a run measures its sizes in ascending order, over up to 45 minutes).
   */
  controlFor?: number;
  /** Records in each measured page (absent from runs before 2026-12-07). */
  rows?: PageRows;
}

interface PageRows {
  firstPage: number;
  deepPage: number;
  firstPageFiltered: number;
  deepPageFiltered: number;
}

/** The stores a run measures, in order: each size, and after each but the smallest, the smallest again as a control. */
export const scalePlan = (sizes: readonly number[]): { entries: number; controlFor?: number }[] =>
  sizes.flatMap((entries, i) =>
    i === 0 ? [{ entries }] : [{ entries }, { entries: sizes[0]!, controlFor: entries }],
  );

interface Context {
  options: BenchOptions;
  backends: readonly ('sqlite' | 'postgres')[];
  scratch: string;
  log: (line: string) => void;
  importSources: { purchaseOrders: string; inventoryHistory: string };
  importRuns: number;
}

/** Entries one location gets from the generator at its smallest (1 order a week, 5 items, 700 days). */
const SMALLEST_LOCATION = 805;

/** The demo generator's options for a store of about `entries` inventory entries over `locations` locations. */
export const generateOptions = (entries: number, locations: number) => {
  const perLocation = entries / locations;
  const unit = perLocation / ENTRIES_PER_UNIT;
  // Below the generator's smallest location, a shorter history instead of fewer orders a week.
  const days =
    perLocation < SMALLEST_LOCATION ? Math.max(14, Math.round((700 * perLocation) / SMALLEST_LOCATION)) : 700;
  return {
    seed: 7,
    days,
    ordersPerWeek: Math.max(1, Math.round(1000 * unit)),
    items: Math.max(5, Math.round(5000 * unit)),
    endDate: '2025-06-30',
  };
};

const freshSpec = async (
  backend: 'sqlite' | 'postgres',
  name: string,
  { scratch, options }: Context,
): Promise<StoreSpec> => {
  if (backend === 'sqlite') {
    const path = join(scratch, `${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    return {
      backend,
      path,
      ...(options.sqliteCacheMb === undefined ? {} : { cacheMb: options.sqliteCacheMb }),
    };
  }
  const schema = `larder_bench_scale_${name}`;
  await dropSchema(schema);
  return { backend, schema };
};

const withClient = async <T>(schema: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

const diskBytes = async (spec: StoreSpec): Promise<number> => {
  if (spec.backend === 'sqlite')
    return ['', '-wal'].reduce((sum, suffix) => {
      try {
        return sum + statSync(`${spec.path}${suffix}`).size;
      } catch {
        return sum;
      }
    }, 0);
  return withClient(spec.schema, async (client) => {
    const result = await client.query<{ bytes: string }>(
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [spec.schema],
    );
    return Number(result.rows[0]?.bytes ?? 0);
  });
};

/** Runs one read-only query on the bench store, outside Larder (placeholders `$1…`). */
const query = async <R>(spec: StoreSpec, sql: string, params: unknown[]): Promise<R[]> => {
  if (spec.backend === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(spec.path, { readonly: true });
    try {
      return db.prepare(sql.replace(/\$\d+/g, '?')).all(...params) as R[];
    } finally {
      db.close();
    }
  }
  return withClient(spec.schema, async (client) => (await client.query(sql, params)).rows as R[]);
};

/** The ids GET by id rotates over: a random sample of one location's entries (those `where` selects). */
export const sampleEntryIds = async (spec: StoreSpec, location: string, where = ''): Promise<string[]> => {
  const rows = await query<{ id: string }>(
    spec,
    `SELECT id FROM inventory_entries WHERE location_id = $1${where} ORDER BY random() LIMIT ${ROTATION}`,
    [location],
  );
  return rows.map((row) => row.id);
};

/**
 * What the runs at one size need from one location's entries (all, or those `where` selects): ids to rotate over
 * (a random sample), and the keyset position the deep page starts after: 80% of the way through, or earlier where
 * that would leave less than a full page, so that every size's deep page holds as many records as it can (the
 * spread layout's smallest store has about 108 entries a location: 80% of the way leaves 21).
 */
const keysetSample = async (spec: StoreSpec, location: string, where: string) => {
  const from = `FROM inventory_entries WHERE location_id = $1${where}`;
  const [counted] = await query<{ n: number | string }>(spec, `SELECT count(*) AS n ${from}`, [location]);
  const total = Number(counted?.n ?? 0);
  const offset = Math.max(0, Math.min(Math.floor(total * 0.8), total - PAGE_SIZE - 1));
  const [deepAfter] = await query<{ modifiedAt: number | string; id: string }>(
    spec,
    `SELECT modified_at AS "modifiedAt", id ${from} ORDER BY modified_at, id LIMIT 1 OFFSET ${offset}`,
    [location],
  );
  return {
    ids: await sampleEntryIds(spec, location, where),
    deepAfter:
      deepAfter === undefined ? undefined : { modifiedAt: Number(deepAfter.modifiedAt), id: deepAfter.id },
    rows: {
      first: Math.min(PAGE_SIZE, total),
      deep: deepAfter === undefined ? Math.min(PAGE_SIZE, total) : Math.min(PAGE_SIZE, total - offset - 1),
    },
  };
};

const measurePoint = async (
  context: Context,
  backend: 'sqlite' | 'postgres',
  layout: Layout,
  entries: number,
  controlFor: number | undefined,
): Promise<ScalePoint> => {
  const { options, log, importSources: files, importRuns } = context;
  const name = `${layout.key}_${entries}`;
  const spec = await freshSpec(backend, name, context);
  log(
    `scale: ${backend}, ${entries.toLocaleString('en-US')} entries, ${layout.label}${controlFor === undefined ? '' : `, control after ${controlFor.toLocaleString('en-US')}`} …`,
  );
  const store = await openSpec(spec);
  const seeded = await seedStore(store, {
    ...generateOptions(entries, layout.locations),
    locations: layout.locations,
    exclusive: true,
  });
  const seededRecords = seeded.locations.reduce((sum, l) => sum + l.purchaseOrders + l.inventoryEntries, 0);
  // The seed's writes are put to disk first (on SQLite it writes without a WAL): otherwise the import of a large
  // store is measured during PostgreSQL's checkpoint of the gigabyte just seeded, which a 10k store never has
  // (in process at 1M entries: 21,000–22,000 records a second right after the seed, 24,000–30,000 after a CHECKPOINT).
  if (spec.backend === 'postgres')
    await withClient(spec.schema, async (client) => {
      await client.query('ANALYZE');
      await client.query('CHECKPOINT');
    });
  // The import rate of the same files at every size, each time into a new location of the store as it stands;
  // the median of importRuns (one import takes about a second, and one alone swung by ±20%).
  const importRates: number[] = [];
  for (let run = 0; run < importRuns; run++) {
    const importStarted = performance.now();
    const imported = await importFiles(store, {
      locationId: `scale-import-${randomUUID().slice(0, 8)}`,
      purchaseOrders: { path: files.purchaseOrders },
      inventoryHistory: { path: files.inventoryHistory },
    });
    const seconds = (performance.now() - importStarted) / 1000;
    importRates.push((imported.counts.purchaseOrders + imported.counts.inventoryEntries) / seconds);
  }
  const location = seeded.locations[0]!.id;
  const client = await createBenchClient(store);
  const secret = await store.settings.pageTokenSecret.ensure(randomUUID() + randomUUID());
  const all = await keysetSample(spec, location, '');
  const filtered = await keysetSample(spec, location, ` AND adjustment_type = 'COUNT'`);
  await store.close();
  const purchaseOrders = seeded.locations.reduce((sum, l) => sum + l.purchaseOrders, 0);
  const totalEntries = seeded.locations.reduce((sum, l) => sum + l.inventoryEntries, 0);

  const larder = await startLarderProcess({
    spec,
    workers: 1,
    serveArgs: [],
    cli: false,
    cpuProf: undefined,
  });
  try {
    const accessToken = await logIn(larder.child.url, client);
    const headers = {
      authorization: `Bearer ${accessToken}`,
      'platform-restaurant-external-id': location,
      'content-type': 'application/json',
    };
    const tokens = createPageTokens(secret);
    const deepPath = (body: object, at: { modifiedAt: number; id: string } | undefined) => {
      if (at === undefined) return '/v1/inventoryHistory/search';
      const filter = INVENTORY_HISTORY.parseFilter(body);
      const binding = `${INVENTORY_HISTORY.name}\n${location}\n${filter.binding}\n${PAGE_SIZE}`;
      return `/v1/inventoryHistory/search?pageToken=${encodeURIComponent(tokens.encode(binding, at))}`;
    };
    const run = (load: Parameters<typeof measure>[1]) =>
      measure(larder.child.url, load, { connections: options.connections, duration: options.duration });
    const search = (body: object, path: string) =>
      run({ method: 'POST', paths: [path], headers, body: JSON.stringify(body) });
    const typeFilter = { adjustmentType: ['COUNT'] };
    await larder.probe.reset();
    const get = await run({
      method: 'GET',
      paths: all.ids.map((id) => `/v1/inventoryHistory/${id}`),
      headers,
    });
    const firstPage = await search({}, '/v1/inventoryHistory/search');
    const deepPage = await search({}, deepPath({}, all.deepAfter));
    const firstPageFiltered = await search(typeFilter, '/v1/inventoryHistory/search');
    const deepPageFiltered = await search(typeFilter, deepPath(typeFilter, filtered.deepAfter));
    const delay = await larder.probe.read();
    const { total: rss } = await larder.probe.rss();
    return {
      backend,
      layout: layout.key,
      locations: layout.locations,
      entries: totalEntries,
      purchaseOrders,
      seedRate: seededRecords / (seeded.ms / 1000),
      importRate: median(importRates),
      get,
      firstPage,
      deepPage,
      firstPageFiltered,
      deepPageFiltered,
      rssMb: rss / 2 ** 20,
      loopDelayMax: delay.max,
      diskMb: (await diskBytes(spec)) / 2 ** 20,
      ...(controlFor === undefined ? {} : { controlFor }),
      rows: {
        firstPage: all.rows.first,
        deepPage: all.rows.deep,
        firstPageFiltered: filtered.rows.first,
        deepPageFiltered: filtered.rows.deep,
      },
    };
  } finally {
    await larder.child.stop();
    if (spec.backend === 'postgres') await dropSchema(spec.schema);
    else for (const suffix of ['', '-wal', '-shm']) rmSync(`${spec.path}${suffix}`, { force: true });
  }
};

const ms = (m: Measurement) => `${m.p50} / ${m.p99}`;
const locationsLabel = (p: ScalePoint) => (p.locations === 1 ? 'one location' : `${p.locations} locations`);

const markdown = (points: readonly ScalePoint[]): string => {
  const lines = [
    '| Backend | Layout | Entries | Orders | Seed rec/s | Import rec/s | GET p50 / p99 ms | First page | Deep page | First page, filtered | Deep page, filtered | Records a page | RSS MB | Loop delay max ms | Disk MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  for (const p of points)
    lines.push(
      `| ${p.backend} | ${locationsLabel(p)}${p.controlFor === undefined ? '' : `, control after ${n(p.controlFor)}`} | ${n(p.entries)} | ${n(p.purchaseOrders)} | ${n(p.seedRate)} | ${n(p.importRate)} | ${ms(p.get)} | ${ms(p.firstPage)} | ${ms(p.deepPage)} | ${ms(p.firstPageFiltered)} | ${ms(p.deepPageFiltered)} | ${p.rows === undefined ? '' : `${p.rows.firstPage} / ${p.rows.deepPage} / ${p.rows.firstPageFiltered} / ${p.rows.deepPageFiltered}`} | ${n(p.rssMb)} | ${p.loopDelayMax} | ${n(p.diskMb)} |`,
    );
  return lines.join('\n');
};

/** The growth factors from one point to another, against the issue's targets. */
const growthFactors = (from: ScalePoint, to: ScalePoint): string => {
  const factor = (pick: (p: ScalePoint) => number) => `×${(pick(to) / pick(from)).toFixed(2)}`;
  // Latencies come in the load generator's 1 ms steps: a p50 of 0 at the smallest size has no ratio.
  const latency = (key: 'get' | keyof PageRows) => {
    const growth =
      from[key].p50 === 0 ? `0 → ${to[key].p50} ms (under 1 ms at first)` : factor((p) => p[key].p50);
    // A small store's location may hold less than a page, and a shorter page is cheaper: the growth overstates.
    const rows = key === 'get' ? undefined : [from.rows?.[key], to.rows?.[key]];
    return rows?.[0] !== undefined && rows[0] !== rows[1]
      ? `${growth} (${rows[0]} → ${rows[1]} records)`
      : growth;
  };
  return (
    `GET p50 ${latency('get')}, first page p50 ${latency('firstPage')}, deep page p50 ${latency('deepPage')}, ` +
    `filtered first/deep ${latency('firstPageFiltered')} / ${latency('deepPageFiltered')} (target ≤ 1.5); ` +
    `import rate ${factor((p) => p.importRate)} (target ≥ 0.7)`
  );
};

/** Whether two stores' measured pages held as many records each (never, for a run from before the count). */
const sameRows = (a: ScalePoint, b: ScalePoint): boolean => {
  const [from, to] = [a.rows, b.rows];
  if (from === undefined || to === undefined) return false;
  return (Object.keys(to) as (keyof PageRows)[]).every((key) => from[key] === to[key]);
};

/**
 * Growth from the smallest to the largest size of each curve, against the issue's targets; where the run
 * measured the smallest store again right after the largest, the largest against that control too; and where the
 * smallest store's pages are shorter than the largest's, the largest against the first store whose are not.
 */
export const scaleGrowth = (points: readonly ScalePoint[]): string[] => {
  const lines: string[] = [];
  const count = (value: number) => value.toLocaleString('en-US');
  for (const backend of ['sqlite', 'postgres'] as const)
    for (const layout of ['one', 'spread'] as const) {
      const ofCurve = points.filter((p) => p.backend === backend && p.layout === layout);
      const curve = ofCurve.filter((p) => p.controlFor === undefined);
      const first = curve[0];
      const last = curve.at(-1);
      if (first === undefined || last === undefined || first === last) continue;
      const where = locationsLabel(first);
      lines.push(
        `- ${backend}, ${where}, ${count(first.entries)} → ${count(last.entries)} entries: ${growthFactors(first, last)}; ` +
          `RSS ${Math.round(last.rssMb)} MB (target ≤ 300).`,
      );
      // The control measured right after the largest store (`controlFor` is the size asked for, `entries` the count made).
      const control = ofCurve[ofCurve.indexOf(last) + 1];
      if (control?.controlFor !== undefined)
        lines.push(
          `- ${backend}, ${where}, against a fresh ${count(control.entries)} store measured right after the ` +
            `${count(last.entries)} one (the run's drift taken out): ${growthFactors(control, last)}.`,
        );
      // Where the smallest store's pages are shorter (a location of the spread 10k store has 65 COUNT entries), the
      // growth above prices longer pages as well as a larger store: read it also from the first store whose pages
      // are as long as the largest's.
      const full = curve.find((p) => p !== last && sameRows(p, last));
      if (full !== undefined && full !== first)
        lines.push(
          `- ${backend}, ${where}, from the smallest store whose pages hold as many records as the largest's, ` +
            `${count(full.entries)} → ${count(last.entries)} entries: ${growthFactors(full, last)}.`,
        );
    }
  return lines;
};

/** The scale run's curves, from its points (also to redraw a committed run's `scale.json`). */
export const scaleChart = (points: readonly ScalePoint[]): string => {
  const series = (
    pick: (p: ScalePoint) => number,
    label: string,
  ): { name: string; points: [number, number][] }[] =>
    (['sqlite', 'postgres'] as const)
      .flatMap((backend) =>
        (['one', 'spread'] as const).map((layout) => ({
          name: `${backend}, ${layout === 'one' ? 'one location' : 'spread over locations'}${label}`,
          points: points
            .filter((p) => p.backend === backend && p.layout === layout && p.controlFor === undefined)
            .map((p): [number, number] => [p.entries, pick(p)]),
        })),
      )
      .filter((entry) => entry.points.length > 0);
  return lineChart({
    title: 'Larder: cost against store size (inventory entries, log scale)',
    panels: [
      { title: 'GET by id p50 (ms)', series: series((p) => p.get.p50, '') },
      {
        title: 'Search page p50 (ms): first, deep (dashed)',
        series: [...series((p) => p.firstPage.p50, ''), ...series((p) => p.deepPage.p50, ' deep')],
      },
      {
        title: 'Filtered page p50 (ms): first, deep (dashed)',
        series: [
          ...series((p) => p.firstPageFiltered.p50, ''),
          ...series((p) => p.deepPageFiltered.p50, ' deep'),
        ],
      },
      { title: 'Import rate (records/s)', series: series((p) => p.importRate, '') },
      { title: 'Server RSS (MB)', series: series((p) => p.rssMb, '') },
      { title: 'Database on disk (MB)', series: series((p) => p.diskMb, '') },
    ],
  });
};

export const runScale = async (context: Omit<Context, 'importSources' | 'importRuns'>): Promise<void> => {
  const { options, backends, scratch } = context;
  const sizes = (options.smoke ? SMOKE_SIZES : SIZES).filter((size) => size <= options.scaleMax);
  if (sizes.length === 0) sizes.push(options.scaleMax);
  const { scale: importScale, runs: importRuns } = importing(options.smoke);
  const importSources = await writeUnicodeFiles(importScale, scratch);
  const points: ScalePoint[] = [];
  for (const backend of backends)
    for (const layout of layouts(options.smoke))
      for (const { entries, controlFor } of scalePlan(sizes))
        points.push(
          await measurePoint({ ...context, importSources, importRuns }, backend, layout, entries, controlFor),
        );
  mkdirSync(options.out, { recursive: true });
  const name = options.smoke ? 'scale-smoke' : 'scale';
  const text = [
    '# Larder bench: cost against size',
    '',
    `Machine: ${machineLine()}`,
    '',
    `Command: \`npm run bench -- ${process.argv.slice(2).join(' ')}\` · ${new Date().toISOString()} · ${options.connections} connections · ${options.duration} s per run`,
    '',
    ...(backends.includes('sqlite')
      ? [
          `SQLite page cache: ${options.sqliteCacheMb ?? DEFAULT_SQLITE_CACHE_MB} MiB a connection (${options.sqliteCacheMb === undefined ? 'Larder’s default' : `\`--sqlite-cache-mb ${options.sqliteCacheMb}\`; Larder’s default is ${DEFAULT_SQLITE_CACHE_MB}`}).`,
          '',
        ]
      : []),
    'Each store is generated fresh (the demo generator; sizes are approximate, the table gives the real counts) and its writes put ' +
      'to disk (on PostgreSQL a CHECKPOINT), then: the import rate of one fixed pair of NDJSON files ' +
      `(${importSources.orderCount.toLocaleString('en-US')} non-ASCII orders and their entries) into a new location of that store, ` +
      `the median of ${importRuns} such imports; ` +
      'GET by id (inventory entries, 2,000 random ids of the measured location), inventory search pages unfiltered ' +
      'and filtered (`adjustmentType: [COUNT]`), the first page and the page 80% of the way through (its page token ' +
      'made from the keyset position; earlier where that would leave less than a full page); p50 / p99 in ms; where ' +
      'a page of the smallest store holds fewer records than the largest’s, the growth says so (the table\'s "Records a page": ' +
      'first / deep / filtered first / filtered deep). RSS and the event loop delay are the server’s, after its runs. ' +
      'Spread over several locations, the first one is measured. After each size but the smallest, the smallest ' +
      'is generated and measured again (a row marked "control"), so the growth of the largest can also be read ' +
      'against a store measured minutes after it, not only against one measured at the start of the run.',
    '',
    markdown(points),
    '',
    ...scaleGrowth(points),
    '',
    `![Cost against size](${name}.svg)`,
    '',
  ].join('\n');
  writeFileSync(join(options.out, `${name}.md`), text);
  writeFileSync(
    join(options.out, `${name}.json`),
    `${JSON.stringify({ machine: machineLine(), date: new Date().toISOString(), options, points }, null, 2)}\n`,
  );
  writeFileSync(join(options.out, `${name}.svg`), scaleChart(points));
  process.stdout.write(text);
};
