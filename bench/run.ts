import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, startChild, startPrism } from './children.js';
import { runCost } from './cost.js';
import { BENCH_LOCATION } from './dataset.js';
import { writeQueryPlans } from './explain.js';
import {
  createBenchClient,
  createDelayProbe,
  type DelayProbe,
  type LarderProcess,
  LOGIN_PATH,
  type LoopDelay,
  logIn,
  startLarderProcess,
} from './larder-process.js';
import { type Load, type Measurement, measure } from './load.js';
import { measureColdStart, measureImports, measureSeed } from './one-shots.js';
import {
  BenchUsageError,
  type DatasetKey,
  type OneShotKey,
  parseOptions,
  type ScenarioKey,
  USAGE,
  wantsHelp,
} from './options.js';
import { machineLine, markdownTable, type Row } from './report.js';
import { runScale } from './scale.js';
import {
  type DatasetSize,
  datasetSize,
  ensureStore,
  openSpec,
  postgresAvailable,
  type StoreSpec,
  sampleIds,
  warmPageCache,
} from './stores.js';
import { ensureUnicodeLocation, UNICODE_LOCATION } from './unicode.js';

const ROOT = join(import.meta.dirname, '..');
const readOptions = (argv: string[]) => {
  if (wantsHelp(argv)) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  try {
    return parseOptions(argv, join(ROOT, 'bench', 'results'));
  } catch (error) {
    if (!(error instanceof BenchUsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
};
const options = readOptions(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const rows: Row[] = [];
const notes: string[] = [];

const TOKEN_PATH = '/authentication/v1/authentication/customer/oauth/token';
const LOCATION_HEADER = 'platform-restaurant-external-id';
/** Distinct ids each GET-by-id run cycles through. */
const ROTATION = 2000;
const PAGE_SIZE = 100;

/** One dataset of the run: a location in every bench store, and the ids its GET scenarios rotate over. */
interface Dataset {
  key: DatasetKey;
  location: string;
  poPaths: string[];
  ihPaths: string[];
  size: DatasetSize;
}

/** One Larder configuration measured side by side with the others: a backend, its workers and serve flags. */
interface Variant {
  spec: StoreSpec;
  workers: number;
  serveArgs: string[];
  /** As the real `larder serve` (workers, serve flags, pool sizes), so variants compared side by side run alike. */
  cli: boolean;
  name: string;
}

/** Everything the bench knows about one running Larder. */
interface Larder {
  name: string;
  spec: StoreSpec;
  process: LarderProcess;
  child: Child;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  /** Walked page paths by `<scenario>/<dataset>` (page tokens are bound to this instance's secret). */
  walked: Map<string, { path: string; page: number; pages: number }>;
}

interface Scenario {
  key: ScenarioKey;
  label: string;
  load: (larder: Larder, dataset: Dataset) => Load;
  /** Also run against Prism, the peer. */
  peer?: boolean;
  /** The ratio each backend must reach. */
  target?: { sqlite: number; postgres: number };
  /** Served from a page reached by walking this search to 80% of its pages first. */
  walk?: { path: string; body: string };
}

const json = { 'content-type': 'application/json' };
const retailHeaders = (larder: Larder, dataset: Dataset) => ({
  authorization: `Bearer ${larder.accessToken}`,
  [LOCATION_HEADER]: dataset.location,
});
/**
 * Larder ignores unknown query parameters; the raw server keys its answers by method and path, so each search
 * scenario and dataset gets a path of its own.
 */
const tagged = (path: string, scenario: string, dataset: Dataset) =>
  `${path}${path.includes('?') ? '&' : '?'}bench=${scenario}&dataset=${dataset.key}`;

const FIRST_PAGE_BODY = JSON.stringify({ includeArchived: true });
// One month of the 23 in the store, two of the adjustment types.
const INVENTORY_FILTER = JSON.stringify({
  adjustmentType: ['RECEIVE', 'WASTED'],
  updatedDateRange: { startDate: '2025-04-01', endDate: '2025-04-30' },
});
const PO_SEARCH = '/v1/purchaseOrders/search';
const IH_SEARCH = '/v1/inventoryHistory/search';
const ORDER_TARGET = { sqlite: 0.7, postgres: 0.6 };
const INVENTORY_TARGET = { sqlite: 0.6, postgres: 0.5 };
const GET_TARGET = { sqlite: 0.65, postgres: 0.6 };

const searchLoad =
  (key: string, path: string, body: string) =>
  (larder: Larder, dataset: Dataset): Load => ({
    method: 'POST',
    paths: [tagged(path, key, dataset)],
    headers: { ...retailHeaders(larder, dataset), ...json },
    body,
  });

const walkedLoad =
  (key: string, body: string) =>
  (larder: Larder, dataset: Dataset): Load => ({
    method: 'POST',
    paths: [larder.walked.get(`${key}/${dataset.key}`)?.path ?? ''],
    headers: { ...retailHeaders(larder, dataset), ...json },
    body,
  });

const ALL_SCENARIOS: Scenario[] = [
  {
    key: 'get-po',
    label: 'GET purchase order by id',
    peer: true,
    target: GET_TARGET,
    load: (larder, dataset) => ({
      method: 'GET',
      paths: dataset.poPaths,
      headers: retailHeaders(larder, dataset),
    }),
  },
  {
    key: 'get-ih',
    label: 'GET inventory entry by id',
    peer: true,
    target: GET_TARGET,
    load: (larder, dataset) => ({
      method: 'GET',
      paths: dataset.ihPaths,
      headers: retailHeaders(larder, dataset),
    }),
  },
  {
    key: 'search-first',
    label: `First search page (${PAGE_SIZE} purchase orders, includeArchived)`,
    target: ORDER_TARGET,
    load: searchLoad('search-first', PO_SEARCH, FIRST_PAGE_BODY),
  },
  {
    key: 'search-live',
    label: 'First search page, archived left out (the default)',
    target: ORDER_TARGET,
    load: searchLoad('search-live', PO_SEARCH, '{}'),
  },
  {
    key: 'search-status',
    label: 'First search page, one status (ORDERED)',
    target: ORDER_TARGET,
    load: searchLoad('search-status', PO_SEARCH, JSON.stringify({ purchaseOrderStatuses: ['ORDERED'] })),
  },
  {
    key: 'search-deep',
    label: 'Deep search page',
    walk: { path: PO_SEARCH, body: FIRST_PAGE_BODY },
    load: walkedLoad('search-deep', FIRST_PAGE_BODY),
  },
  {
    key: 'search-ih',
    label: 'Inventory search, type + date filter',
    target: INVENTORY_TARGET,
    load: searchLoad('search-ih', IH_SEARCH, INVENTORY_FILTER),
  },
  {
    key: 'search-ih-deep',
    label: 'Inventory search, type + date filter, a later page',
    target: INVENTORY_TARGET,
    walk: { path: IH_SEARCH, body: INVENTORY_FILTER },
    load: walkedLoad('search-ih-deep', INVENTORY_FILTER),
  },
  {
    key: 'login',
    label: 'Login',
    load: (larder) => ({
      method: 'POST',
      paths: [LOGIN_PATH],
      headers: json,
      body: JSON.stringify({
        clientId: larder.clientId,
        clientSecret: larder.clientSecret,
        userAccessType: 'PLATFORM_MACHINE_CLIENT',
      }),
    }),
  },
  {
    key: 'token',
    label: 'OAuth token grant',
    load: (larder) => ({
      method: 'POST',
      paths: [TOKEN_PATH],
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${larder.clientId}:${larder.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    }),
  },
];
/** Scenarios whose answers do not depend on the dataset: measured once. */
const DATASET_FREE = new Set(['login', 'token']);
/**
 * The deep page's target compares it with the first page of the same server, so both are measured in the same
 * alternating rounds (first, deep, next server's first, …): drift on a shared machine then hits the pair alike,
 * where measuring them in different scenarios half a minute apart let it decide the factor.
 */
const PAIRED_WITH_FIRST_PAGE = 'search-deep';

const SCENARIOS = ALL_SCENARIOS.filter(
  (scenario) => options.only.length === 0 || options.only.includes(scenario.key),
);

const call = async (base: string, load: Load, path: string) => {
  const response = await fetch(`${base}${path}`, {
    method: load.method,
    headers: load.headers,
    ...(load.body === undefined ? {} : { body: load.body }),
  });
  const body = await response.text();
  if (response.status !== 200)
    throw new Error(`${load.method} ${path}: ${response.status} ${body.slice(0, 300)}`);
  return { body, contentType: response.headers.get('content-type') ?? 'application/json' };
};

/** Walks a search's pages as a client would and keeps the path of the page at 80% of them. */
const walk = async (larder: Larder, dataset: Dataset, scenario: Scenario) => {
  if (scenario.walk === undefined) return;
  const load: Load = {
    method: 'POST',
    paths: [],
    headers: { ...retailHeaders(larder, dataset), ...json },
    body: scenario.walk.body,
  };
  const paths = [tagged(scenario.walk.path, scenario.key, dataset)];
  for (;;) {
    const { nextPageToken } = JSON.parse((await call(larder.child.url, load, paths.at(-1)!)).body) as {
      nextPageToken: string;
    };
    if (nextPageToken === '') break;
    paths.push(
      tagged(`${scenario.walk.path}?pageToken=${encodeURIComponent(nextPageToken)}`, scenario.key, dataset),
    );
  }
  const index = Math.max(0, Math.round(paths.length * 0.8) - 1);
  larder.walked.set(`${scenario.key}/${dataset.key}`, {
    path: paths[index]!,
    page: index + 1,
    pages: paths.length,
  });
};

const startLarder = async (variant: Variant, datasets: readonly Dataset[]): Promise<Larder> => {
  const { spec } = variant;
  // A client of its own per run, granted everything, created before the server loads its client table.
  const store = await openSpec(spec);
  const client = await createBenchClient(store);
  await store.close();
  const process = await startLarderProcess({
    spec,
    workers: variant.workers,
    serveArgs: variant.serveArgs,
    cli: variant.cli,
    cpuProf: options.cpuProf,
  });
  const { child } = process;
  const accessToken = await logIn(child.url, client);
  const larder: Larder = {
    name: variant.name,
    spec,
    process,
    child,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    accessToken,
    walked: new Map(),
  };
  for (const dataset of datasets)
    for (const scenario of SCENARIOS.filter((candidate) => candidate.walk !== undefined))
      await walk(larder, dataset, scenario);
  log(`${larder.name} at ${child.url}: token issued, pages walked`);
  return larder;
};

/** The raw server learns, for every request of every scenario, the bytes this Larder answers with. */
const teachRaw = async (raw: Child, larder: Larder, datasets: readonly Dataset[]) => {
  const routes: [string, string, string][] = [];
  const paired = SCENARIOS.some((scenario) => scenario.key === PAIRED_WITH_FIRST_PAGE);
  for (const dataset of datasets)
    for (const scenario of ALL_SCENARIOS.filter(
      (candidate) => SCENARIOS.includes(candidate) || (paired && candidate.key === 'search-first'),
    )) {
      const load = scenario.load(larder, dataset);
      for (let i = 0; i < load.paths.length; i += 32) {
        const slice = load.paths.slice(i, i + 32);
        const answers = await Promise.all(slice.map((path) => call(larder.child.url, load, path)));
        for (const [j, answer] of answers.entries())
          routes.push([`${load.method} ${slice[j]}`, answer.body, answer.contentType]);
      }
    }
  await raw.ask({ routes }, 'loaded');
};

/**
 * Rounds per measured run: targets alternate, so load that drifts on a shared machine hits all of them alike
 * (one in the smoke, where only completing matters).
 */
const ROUNDS = options.smoke ? 1 : 2;

/** One server's runs of a scenario: throughput and latency, and the event loop's delay over those runs alone. */
interface Measured extends Measurement {
  loopDelay?: LoopDelay;
}

/**
 * Each target's probe is read around that target's own measured runs only: a server waiting while another is
 * loaded shares the machine with that load, and its loop's late ticks then are the scheduler's, not a request's.
 * The warm-up (JIT compilation, first reads) is left out too.
 */
const measureAll = async (
  targets: readonly { url: string; load: Load; probe?: DelayProbe }[],
): Promise<Measured[]> => {
  const { connections } = options;
  if (options.warmup > 0)
    for (const target of targets)
      await measure(target.url, target.load, { connections, duration: options.warmup });
  const parts = targets.map((): Measurement[] => []);
  const delays = targets.map((): LoopDelay[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      await target.probe?.reset();
      parts[i]!.push(
        await measure(target.url, target.load, { connections, duration: options.duration / ROUNDS }),
      );
      if (target.probe !== undefined) delays[i]!.push(await target.probe.read());
    }
  }
  // Rounds are equally long: the rate is their mean; p50 is the mean of the rounds' and p99 the worst, as is
  // the loop delay's.
  return parts.map((rounds, i) => ({
    requestsPerSecond: rounds.reduce((sum, m) => sum + m.requestsPerSecond, 0) / rounds.length,
    p50: rounds.reduce((sum, m) => sum + m.p50, 0) / rounds.length,
    p99: Math.max(...rounds.map((m) => m.p99)),
    failures: rounds.reduce((sum, m) => sum + m.failures, 0),
    ...(delays[i]!.length === 0
      ? {}
      : {
          loopDelay: {
            p99: Math.max(...delays[i]!.map((delay) => delay.p99)),
            max: Math.max(...delays[i]!.map((delay) => delay.max)),
            gcMax: Math.max(...delays[i]!.map((delay) => delay.gcMax)),
          },
        }),
  }));
};

const loadRow = (scenario: string, server: string, m: Measured, raw?: Measurement): Row => ({
  scenario,
  server,
  rate: m.requestsPerSecond,
  p50: m.p50,
  p99: m.p99,
  ...(raw === undefined ? {} : { ratio: m.requestsPerSecond / raw.requestsPerSecond }),
  ...(m.loopDelay === undefined ? {} : { loopDelay: m.loopDelay }),
  ...(m.failures > 0 ? { pass: false, note: `${m.failures} failed requests` } : {}),
});

const judge = (row: Row, target: string, pass: boolean, note?: string) => {
  row.target = target;
  const failedRequests = row.pass === false;
  row.pass = pass && !failedRequests;
  if (note !== undefined) row.note = row.note === undefined ? note : `${row.note}; ${note}`;
};

/** No single request may hold the event loop longer than this (the issue's target, checked on every row). */
const LOOP_DELAY_LIMIT_MS = 5;
const loopDelays: { scenario: string; server: string; delay: LoopDelay }[] = [];
/** The raw server's own delay over its own runs: the floor a machine's GC and scheduler set for any server. */
const rawLoopDelays: LoopDelay[] = [];

/** The raw baseline's process and the event-loop probe loaded into it. */
interface Raw {
  child: Child;
  probe: DelayProbe;
}

const datasetLabel = (label: string, dataset: Dataset) =>
  dataset.key === 'demo' ? label : `${label} · non-ASCII`;

const runScenario = async (
  scenario: Scenario,
  dataset: Dataset,
  raw: Raw,
  larders: Larder[],
  prism: Child | undefined,
) => {
  const [reference] = larders;
  const firstPage = ALL_SCENARIOS.find((candidate) => candidate.key === 'search-first');
  if (reference === undefined || firstPage === undefined) return;
  const label = datasetLabel(scenario.label, dataset);
  log(`${label} …`);
  const usePrism = scenario.peer === true && prism !== undefined && dataset.key === 'demo';
  const paired = scenario.key === PAIRED_WITH_FIRST_PAGE;
  const servers = [
    { url: raw.child.url, larder: reference, probe: raw.probe },
    ...larders.map((larder) => ({ url: larder.child.url, larder, probe: larder.process.probe })),
  ];
  const measured = await measureAll([
    ...servers.flatMap(({ url, larder, probe }) => [
      ...(paired ? [{ url, load: firstPage.load(larder, dataset), probe }] : []),
      { url, load: scenario.load(larder, dataset), probe },
    ]),
    ...(usePrism ? [{ url: prism.url, load: scenario.load(reference, dataset) }] : []),
  ]);
  const step = paired ? 2 : 1;
  const [rawResult, ...results] = servers.map((_, i) => measured[i * step + step - 1]!);
  const [rawFirst, ...firsts] = paired ? servers.map((_, i) => measured[i * step]!) : [];
  if (rawResult === undefined) return;
  if (rawResult.loopDelay !== undefined) rawLoopDelays.push(rawResult.loopDelay);
  rows.push({ ...loadRow(label, 'raw node:http', rawResult), ratio: 1 });
  const larderRows: Row[] = [];
  for (const [i, larder] of larders.entries()) {
    const result = results[i]!;
    const walked = larder.walked.get(`${scenario.key}/${dataset.key}`);
    const row = loadRow(
      walked === undefined ? label : `${label} (page ${walked.page} of ${walked.pages})`,
      larder.name,
      result,
      rawResult,
    );
    if (result.loopDelay !== undefined)
      loopDelays.push({ scenario: label, server: larder.name, delay: result.loopDelay });
    if (scenario.target !== undefined) {
      const target = scenario.target[larder.spec.backend];
      judge(row, `≥ ${target.toFixed(2)} × raw`, row.ratio! >= target);
    }
    const first = firsts[i];
    if (first !== undefined && rawFirst !== undefined) {
      const factor = result.p50 / Math.max(first.p50, 1);
      // The deep page's orders are larger (recent ones carry received events): the raw server's own factor
      // for the same bytes shows how much of Larder's is the body rather than the query.
      const rawFactor = rawResult.p50 / Math.max(rawFirst.p50, 1);
      judge(
        row,
        'p50 ≤ 1.2 × first page p50',
        factor <= 1.2,
        `${factor.toFixed(2)} × the first page's p50 of ${first.p50} ms in the same rounds; raw server: ${rawFactor.toFixed(2)} ×`,
      );
    }
    if (scenario.key === 'login' || scenario.key === 'token')
      judge(row, '≥ 3,000 tokens/s', result.requestsPerSecond >= 3000);
    larderRows.push(row);
    rows.push(row);
  }
  const result = measured[servers.length * step];
  if (usePrism && result !== undefined) {
    const row = loadRow(label, 'Prism mock', result, rawResult);
    const factors = larderRows.map(
      (larder) => `${larder.server}: ${(larder.rate! / result.requestsPerSecond).toFixed(1)}×`,
    );
    row.target = 'Larder ≥ 10 × Prism';
    row.pass = larderRows.every((larder) => larder.rate! >= 10 * result.requestsPerSecond);
    row.note = `${row.note === undefined ? '' : `${row.note}; `}${factors.join(', ')}`;
    rows.push(row);
  }
};

const runScenarios = async (
  raw: Raw,
  larders: Larder[],
  prism: Child | undefined,
  datasets: readonly Dataset[],
) => {
  for (const scenario of SCENARIOS)
    for (const dataset of datasets) {
      if (DATASET_FREE.has(scenario.key) && dataset !== datasets[0]) continue;
      await runScenario(scenario, dataset, raw, larders, prism);
    }
};

const rssRows = async (larders: Larder[], datasets: readonly Dataset[]) => {
  const entries = datasets.reduce((sum, dataset) => sum + dataset.size.inventoryEntries, 0);
  for (const larder of larders) {
    const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
    const row: Row = {
      scenario: `Server RSS after the run (${entries.toLocaleString('en-US')} entries stored)`,
      server: larder.name,
    };
    let rss: number;
    let note: string;
    try {
      const { before, after } = await larder.child.ask<Record<'before' | 'after', NodeJS.MemoryUsage>>(
        'rss',
        'rss',
      );
      rss = before.rss;
      note = `V8 heap ${mb(before.heapTotal)} committed; after a full GC: RSS ${mb(after.rss)}, ${mb(after.heapUsed)} live`;
    } catch {
      // larder serve has no channel: the probe's figures. Each worker is a server of its own, so the target
      // holds per process; the sum is what the machine gives the whole cluster.
      const { total, largest } = await larder.process.probe.rss();
      rss = largest;
      note = `the largest process of larder serve; all of its processes together ${mb(total)}`;
    }
    row.value = { amount: rss / 2 ** 20, unit: 'MB' };
    judge(row, '≤ 250 MB', rss <= 250 * 2 ** 20, note);
    rows.push(row);
  }
};

const loopDelayNote = (): string | undefined => {
  if (loopDelays.length === 0) return undefined;
  const worst = loopDelays.reduce((a, b) => (b.delay.max > a.delay.max ? b : a));
  const over = loopDelays.filter((entry) => entry.delay.max > LOOP_DELAY_LIMIT_MS);
  const range = (values: number[]) => `${Math.min(...values)}–${Math.max(...values)}`;
  const rawOver = rawLoopDelays.filter((delay) => delay.max > LOOP_DELAY_LIMIT_MS);
  return (
    "Event-loop delay (monitorEventLoopDelay at 1 ms resolution, in every server process, over that server's own " +
    "measured runs; the time a tick came late, the sampling timer's own 1 ms taken off): " +
    `worst Larder max ${worst.delay.max} ms (${worst.server}, ${worst.scenario}); ` +
    `${over.length} of ${loopDelays.length} Larder rows over ${LOOP_DELAY_LIMIT_MS} ms, ` +
    `${over.filter((entry) => entry.delay.gcMax > LOOP_DELAY_LIMIT_MS).length} of them with a single garbage-collection pause over ${LOOP_DELAY_LIMIT_MS} ms. ` +
    `The raw node:http server, probed the same way over its own runs, is the control: p99 ${range(rawLoopDelays.map((delay) => delay.p99))} ms, ` +
    `max ${range(rawLoopDelays.map((delay) => delay.max))} ms, ${rawOver.length} of ${rawLoopDelays.length} rows over ${LOOP_DELAY_LIMIT_MS} ms. ` +
    'A max also holds garbage collection and the scheduler taking the core away, not only a request: the longest ' +
    'GC pause of each row is in brackets.'
  );
};

const writeResults = (datasets: readonly Dataset[]) => {
  const machine = machineLine();
  const stores = datasets
    .map(
      (dataset) =>
        `${dataset.key === 'demo' ? '1 demo-generator location' : '1 non-ASCII location (imported from NDJSON, orders of 2–3 KB)'}, ` +
        `${dataset.size.purchaseOrders.toLocaleString('en-US')} purchase orders, ${dataset.size.inventoryEntries.toLocaleString('en-US')} inventory entries`,
    )
    .join('; ');
  const delayNote = loopDelayNote();
  const header = [
    `# Larder bench${options.smoke ? ' (smoke)' : ''}`,
    '',
    `Machine: ${machine}`,
    '',
    `Command: \`npm run bench -- ${process.argv.slice(2).join(' ')}\``,
    '',
    `${new Date().toISOString()} · ${options.connections} connections · ${options.duration} s per run after ${options.warmup} s warm-up · ` +
      `stores: ${stores} (scale ${options.scale}). ` +
      'autocannon runs in the bench process; each server under test (raw node:http, Larder per backend, Prism) runs in its own process, so on 2 cores the load generator and the server each get about one. ' +
      'Stores are warm: each run follows a warm-up run, and the database pages are in the OS page cache. Ratios are to the raw server in the same run.',
    ...notes.map((note) => `\n${note}`),
    ...(delayNote === undefined ? [] : [`\n${delayNote}`]),
    '',
  ].join('\n');
  const table = markdownTable(rows);
  mkdirSync(options.out, { recursive: true });
  const name = options.smoke ? 'smoke' : 'latest';
  writeFileSync(join(options.out, `${name}.md`), `${header}\n${table}\n`);
  writeFileSync(
    join(options.out, `${name}.json`),
    `${JSON.stringify({ machine, date: new Date().toISOString(), options, datasets: datasets.map(({ key, location, size }) => ({ key, location, size })), notes, rows }, null, 2)}\n`,
  );
  process.stdout.write(`${header}\n${table}\n`);
};

/** Every Larder configuration to measure: each backend with each worker count, and PostgreSQL per pool size. */
const variants = (specs: readonly StoreSpec[]): Variant[] => {
  const list: Variant[] = [];
  const several = options.workers.length > 1;
  const cli =
    several || options.workers[0] !== 1 || options.serveArgs.length > 0 || options.poolSizes.length > 0;
  for (const spec of specs) {
    for (const workers of options.workers)
      list.push({
        spec,
        workers,
        serveArgs: options.serveArgs,
        cli,
        name: `Larder ${spec.backend}${several ? ` ×${workers}` : ''}`,
      });
    if (spec.backend === 'postgres')
      for (const poolSize of options.poolSizes)
        list.push({
          spec,
          workers: options.workers[0]!,
          serveArgs: [...options.serveArgs, '--pool-size', String(poolSize)],
          cli,
          name: `Larder postgres, pool ${poolSize}`,
        });
  }
  return list;
};

const loadDatasets = async (spec: StoreSpec, scratch: string): Promise<Dataset[]> => {
  const datasets: Dataset[] = [];
  for (const key of options.datasets) {
    const location = key === 'demo' ? BENCH_LOCATION : UNICODE_LOCATION;
    datasets.push({
      key,
      location,
      size: await datasetSize(spec, location),
      poPaths: (await sampleIds(spec, 'purchase_orders', ROTATION, location)).map(
        (id) => `/v1/purchaseOrders/${id}`,
      ),
      ihPaths: (await sampleIds(spec, 'inventory_entries', ROTATION, location)).map(
        (id) => `/v1/inventoryHistory/${id}`,
      ),
    });
  }
  if (datasets.length === 0) throw new Error(`no dataset (${scratch})`);
  return datasets;
};

const main = async () => {
  log(machineLine());
  // Larder runs as shipped, from dist/: rebuilt from the current source first (the smoke runs after npm test's build).
  if (!options.smoke) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(join(ROOT, 'dist', 'server', 'server.js')))
    throw new Error('dist/ is missing: run npm run build');
  const backends = [...options.backends];
  if (backends.includes('postgres') && !(await postgresAvailable())) {
    notes.push('PostgreSQL was not reachable: its rows are missing.');
    backends.splice(backends.indexOf('postgres'), 1);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'larder-bench-'));
  if (options.scaleRun) {
    try {
      await runScale({ options, backends, scratch, log });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return;
  }
  const cacheDir = options.smoke ? scratch : join(ROOT, 'bench', '.cache');
  const children: Child[] = [];
  try {
    const specs: StoreSpec[] = [];
    for (const backend of backends) {
      const spec = await ensureStore(backend, options.scale, { cacheDir, fresh: options.fresh, log });
      if (options.datasets.includes('unicode')) {
        const store = await openSpec(spec);
        try {
          await ensureUnicodeLocation(store, options.scale, scratch, log);
        } finally {
          await store.close();
        }
      }
      specs.push(spec);
    }
    if (specs[0] === undefined) throw new Error('no backend to bench');
    for (const spec of specs) await warmPageCache(spec, log);
    if (options.explain) {
      await writeQueryPlans(specs, join(ROOT, 'docs', 'query-plans.md'), log);
      return;
    }
    const datasets = await loadDatasets(specs[0], scratch);
    if (options.cost) {
      const demo = datasets.find((dataset) => dataset.key === 'demo') ?? datasets[0]!;
      for (const spec of specs)
        await runCost({
          spec,
          location: demo.location,
          // Ids sampled from the first backend's store: every store holds the same generated records.
          poPaths: demo.poPaths,
          rounds: options.rounds,
          instances: options.instances,
          separateProcesses: options.separateProcesses,
          connections: options.connections,
          out: options.out,
          cpuProf: options.cpuProf,
          only: options.only,
          paths: options.costPaths,
          smoke: options.smoke,
          log,
        });
      return;
    }
    const wanted = (key: OneShotKey) => options.only.length === 0 || options.only.includes(key);
    if (SCENARIOS.length > 0) await runLoads(specs, datasets, scratch, children);
    const sqlite = specs.find((spec) => spec.backend === 'sqlite');
    if (wanted('cold-start') && sqlite?.backend === 'sqlite')
      rows.push(await measureColdStart(sqlite.path, { log }));
    if (wanted('import')) rows.push(...(await measureImports(backends, options.scale, scratch, log)));
    if (wanted('seed')) rows.push(...(await measureSeed(backends, options.scale, scratch, log)));
    writeResults(datasets);
  } finally {
    for (const child of children) await child.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
};

/** The load scenarios: every Larder configuration, the raw server and Prism started, run, and stopped. */
const runLoads = async (
  specs: readonly StoreSpec[],
  datasets: Awaited<ReturnType<typeof loadDatasets>>,
  scratch: string,
  children: Child[],
) => {
  const larders: Larder[] = [];
  for (const variant of variants(specs)) {
    const larder = await startLarder(variant, datasets);
    children.push(larder.child);
    larders.push(larder);
  }
  const rawProbe = createDelayProbe();
  const rawChild = await startChild('raw-server.ts', {
    env: rawProbe.env,
    execArgv: rawProbe.execArgv,
  });
  children.push({ ...rawChild, stop: () => rawChild.stop().finally(rawProbe.close) });
  const raw = { child: rawChild, probe: rawProbe };
  await teachRaw(rawChild, larders[0]!, datasets);
  let prism: Child | undefined;
  if (options.prism && SCENARIOS.some((scenario) => scenario.peer)) {
    const documentPath = join(scratch, 'openapi.json');
    writeFileSync(documentPath, await (await fetch(`${larders[0]!.child.url}/openapi.json`)).text());
    const started = await startPrism(documentPath);
    if ('skipped' in started) notes.push(`Prism rows skipped: ${started.skipped}.`);
    else {
      prism = started.child;
      children.push(prism);
    }
  } else if (!options.smoke) notes.push('Prism rows skipped (--no-prism).');
  if (options.serveArgs.length > 0) notes.push(`Every Larder ran with \`${options.serveArgs.join(' ')}\`.`);
  await runScenarios(raw, larders, prism, datasets);
  await rssRows(larders, datasets);
  for (const child of children.splice(0)) await child.stop();
};

await main();
