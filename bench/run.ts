import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientCredentials } from '../src/auth/clients.js';
import { RETAIL_INVENTORY_READ, RETAIL_READ } from '../src/auth/scopes.js';
import { type Child, startChild, startPrism } from './children.js';
import { BENCH_LOCATION } from './dataset.js';
import { type Load, type Measurement, measure } from './load.js';
import { measureColdStart, measureImports, measureSeed } from './one-shots.js';
import { parseOptions } from './options.js';
import { machineLine, markdownTable, type Row } from './report.js';
import {
  DATABASE_URL,
  type DatasetSize,
  datasetSize,
  ensureStore,
  openSpec,
  postgresAvailable,
  type StoreSpec,
  sampleIds,
} from './stores.js';

const ROOT = join(import.meta.dirname, '..');
const options = parseOptions(process.argv.slice(2), join(ROOT, 'bench', 'results'));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const rows: Row[] = [];
const notes: string[] = [];

const LOGIN_PATH = '/authentication/v1/authentication/login';
const TOKEN_PATH = '/authentication/v1/authentication/customer/oauth/token';
const LOCATION_HEADER = 'platform-restaurant-external-id';
/** Distinct ids each GET-by-id run cycles through. */
const ROTATION = 2000;
const PAGE_SIZE = 100;

/** Everything the bench knows about one running Larder. */
interface Larder {
  name: string;
  spec: StoreSpec;
  child: Child;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  /** The deep page's path (its pageToken is bound to this instance's secret). */
  deepPath: string;
  deepPage: number;
}

interface Scenario {
  key: string;
  label: string;
  load: (larder: Larder) => Load;
  /** Also run against Prism, the peer. */
  peer?: boolean;
}

let size: DatasetSize = { purchaseOrders: 0, inventoryEntries: 0 };
const json = { 'content-type': 'application/json' };
const retailHeaders = (larder: Larder) => ({
  authorization: `Bearer ${larder.accessToken}`,
  [LOCATION_HEADER]: BENCH_LOCATION,
});
// Filled from the store before the first run.
let poPaths: string[] = [];
let ihPaths: string[] = [];
const FIRST_PAGE_BODY = JSON.stringify({ includeArchived: true });
// One month of the 23 in the store, two of the adjustment types.
const INVENTORY_FILTER = JSON.stringify({
  adjustmentType: ['RECEIVE', 'WASTED'],
  updatedDateRange: { startDate: '2025-04-01', endDate: '2025-04-30' },
});

const ALL_SCENARIOS: Scenario[] = [
  {
    key: 'get-po',
    label: 'GET purchase order by id',
    peer: true,
    load: (larder) => ({ method: 'GET', paths: poPaths, headers: retailHeaders(larder) }),
  },
  {
    key: 'get-ih',
    label: 'GET inventory entry by id',
    peer: true,
    load: (larder) => ({ method: 'GET', paths: ihPaths, headers: retailHeaders(larder) }),
  },
  {
    key: 'search-first',
    label: `First search page (${PAGE_SIZE} purchase orders)`,
    load: (larder) => ({
      method: 'POST',
      paths: ['/v1/purchaseOrders/search'],
      headers: { ...retailHeaders(larder), ...json },
      body: FIRST_PAGE_BODY,
    }),
  },
  {
    key: 'search-deep',
    label: 'Deep search page',
    load: (larder) => ({
      method: 'POST',
      paths: [larder.deepPath],
      headers: { ...retailHeaders(larder), ...json },
      body: FIRST_PAGE_BODY,
    }),
  },
  {
    key: 'search-ih',
    label: 'Inventory search, type + date filter',
    load: (larder) => ({
      method: 'POST',
      paths: ['/v1/inventoryHistory/search'],
      headers: { ...retailHeaders(larder), ...json },
      body: INVENTORY_FILTER,
    }),
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

const startLarder = async (spec: StoreSpec): Promise<Larder> => {
  const name = `Larder ${spec.backend}`;
  // A client of its own per run, granted everything, created before the server loads its client table.
  const store = await openSpec(spec);
  const client = await createClientCredentials(store, {
    name: 'bench',
    allLocations: true,
    scopes: [RETAIL_INVENTORY_READ, RETAIL_READ],
  });
  await store.close();
  const child = await startChild('server-child.mjs', {
    env: { LARDER_BENCH_STORE: JSON.stringify(spec), LARDER_BENCH_DATABASE_URL: DATABASE_URL },
    execArgv: [
      '--expose-gc',
      ...(options.cpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`]),
    ],
  });
  const login = await fetch(`${child.url}${LOGIN_PATH}`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      userAccessType: 'PLATFORM_MACHINE_CLIENT',
    }),
  });
  const { token } = (await login.json()) as { token: { accessToken: string } };
  const larder: Larder = {
    name,
    spec,
    child,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    accessToken: token.accessToken,
    deepPath: '',
    deepPage: 0,
  };
  // Page 800 of 1,000 at scale 1: reached by walking the pages once, as a client would.
  const pages = Math.ceil(size.purchaseOrders / PAGE_SIZE);
  larder.deepPage = Math.max(1, Math.round(pages * 0.8));
  const first: Load = {
    method: 'POST',
    paths: [],
    headers: { ...retailHeaders(larder), ...json },
    body: FIRST_PAGE_BODY,
  };
  let path = '/v1/purchaseOrders/search';
  for (let page = 1; page < larder.deepPage; page++) {
    const { nextPageToken } = JSON.parse((await call(child.url, first, path)).body) as {
      nextPageToken: string;
    };
    path = `/v1/purchaseOrders/search?pageToken=${encodeURIComponent(nextPageToken)}`;
  }
  larder.deepPath = path;
  log(`${name} at ${child.url}: token issued, deep page ${larder.deepPage} of ${pages} located`);
  return larder;
};

/** The raw server learns, for every request of every scenario, the bytes this Larder answers with. */
const teachRaw = async (raw: Child, larder: Larder) => {
  const routes: [string, string, string][] = [];
  const paired = SCENARIOS.some((scenario) => scenario.key === PAIRED_WITH_FIRST_PAGE);
  for (const scenario of ALL_SCENARIOS.filter(
    (candidate) => SCENARIOS.includes(candidate) || (paired && candidate.key === 'search-first'),
  )) {
    const load = scenario.load(larder);
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

const measureAll = async (targets: readonly { url: string; load: Load }[]): Promise<Measurement[]> => {
  const { connections } = options;
  if (options.warmup > 0)
    for (const target of targets)
      await measure(target.url, target.load, { connections, duration: options.warmup });
  const parts = targets.map((): Measurement[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries())
      parts[i]!.push(
        await measure(target.url, target.load, { connections, duration: options.duration / ROUNDS }),
      );
  }
  // Rounds are equally long: the rate is their mean; p50 is the mean of the rounds' and p99 the worst.
  return parts.map((rounds) => ({
    requestsPerSecond: rounds.reduce((sum, m) => sum + m.requestsPerSecond, 0) / rounds.length,
    p50: rounds.reduce((sum, m) => sum + m.p50, 0) / rounds.length,
    p99: Math.max(...rounds.map((m) => m.p99)),
    failures: rounds.reduce((sum, m) => sum + m.failures, 0),
  }));
};

const loadRow = (scenario: string, server: string, m: Measurement, raw?: Measurement): Row => ({
  scenario,
  server,
  rate: m.requestsPerSecond,
  p50: m.p50,
  p99: m.p99,
  ...(raw === undefined ? {} : { ratio: m.requestsPerSecond / raw.requestsPerSecond }),
  ...(m.failures > 0 ? { pass: false, note: `${m.failures} failed requests` } : {}),
});

const judge = (row: Row, target: string, pass: boolean, note?: string) => {
  row.target = target;
  const failedRequests = row.pass === false;
  row.pass = pass && !failedRequests;
  if (note !== undefined) row.note = row.note === undefined ? note : `${row.note}; ${note}`;
};

const runScenarios = async (raw: Child, larders: Larder[], prism: Child | undefined) => {
  const [reference] = larders;
  const firstPage = ALL_SCENARIOS.find((scenario) => scenario.key === 'search-first');
  if (reference === undefined || firstPage === undefined) return;
  for (const scenario of SCENARIOS) {
    log(`${scenario.label} …`);
    const usePrism = scenario.peer === true && prism !== undefined;
    const paired = scenario.key === PAIRED_WITH_FIRST_PAGE;
    const servers = [
      { url: raw.url, larder: reference },
      ...larders.map((larder) => ({ url: larder.child.url, larder })),
    ];
    const measured = await measureAll([
      ...servers.flatMap(({ url, larder }) => [
        ...(paired ? [{ url, load: firstPage.load(larder) }] : []),
        { url, load: scenario.load(larder) },
      ]),
      ...(usePrism ? [{ url: prism.url, load: scenario.load(reference) }] : []),
    ]);
    const step = paired ? 2 : 1;
    const [rawResult, ...results] = servers.map((_, i) => measured[i * step + step - 1]!);
    const [rawFirst, ...firsts] = paired ? servers.map((_, i) => measured[i * step]!) : [];
    if (rawResult === undefined) continue;
    rows.push({ ...loadRow(scenario.label, 'raw node:http', rawResult), ratio: 1 });
    const larderRows: Row[] = [];
    for (const [i, larder] of larders.entries()) {
      const result = results[i]!;
      const row = loadRow(
        paired ? `${scenario.label} (page ${larder.deepPage})` : scenario.label,
        larder.name,
        result,
        rawResult,
      );
      if (scenario.key.startsWith('get-') || scenario.key === 'search-first')
        judge(row, '≥ 0.60 × raw', row.ratio! >= 0.6);
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
      const row = loadRow(scenario.label, 'Prism mock', result, rawResult);
      const factors = larderRows.map(
        (larder) => `${larder.server}: ${(larder.rate! / result.requestsPerSecond).toFixed(1)}×`,
      );
      row.target = 'Larder ≥ 10 × Prism';
      row.pass = larderRows.every((larder) => larder.rate! >= 10 * result.requestsPerSecond);
      row.note = `${row.note === undefined ? '' : `${row.note}; `}${factors.join(', ')}`;
      rows.push(row);
    }
  }
};

const rssRows = async (larders: Larder[]) => {
  for (const larder of larders) {
    const { before, after } = await larder.child.ask<Record<'before' | 'after', NodeJS.MemoryUsage>>(
      'rss',
      'rss',
    );
    const rss = before.rss;
    const row: Row = {
      scenario: `Server RSS after the run (${size.inventoryEntries.toLocaleString('en-US')} entries stored)`,
      server: larder.name,
      value: { amount: rss / 2 ** 20, unit: 'MB' },
    };
    const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
    judge(
      row,
      '≤ 250 MB',
      rss <= 250 * 2 ** 20,
      `V8 heap ${mb(before.heapTotal)} committed; after a full GC: RSS ${mb(after.rss)}, ${mb(after.heapUsed)} live`,
    );
    rows.push(row);
  }
};

const writeResults = () => {
  const machine = machineLine();
  const header = [
    `# Larder bench${options.smoke ? ' (smoke)' : ''}`,
    '',
    `Machine: ${machine}`,
    '',
    `${new Date().toISOString()} · ${options.connections} connections · ${options.duration} s per run after ${options.warmup} s warm-up · ` +
      `store: 1 demo-generator location, ${size.purchaseOrders.toLocaleString('en-US')} purchase orders, ${size.inventoryEntries.toLocaleString('en-US')} inventory entries (scale ${options.scale}). ` +
      'autocannon runs in the bench process; each server under test (raw node:http, Larder per backend, Prism) runs in its own process, so on 2 cores the load generator and the server each get about one. ' +
      'Stores are warm: each run follows a warm-up run, and the database pages are in the OS page cache. Ratios are to the raw server in the same run.',
    ...notes.map((note) => `\n${note}`),
    '',
  ].join('\n');
  const table = markdownTable(rows);
  mkdirSync(options.out, { recursive: true });
  const name = options.smoke ? 'smoke' : 'latest';
  writeFileSync(join(options.out, `${name}.md`), `${header}\n${table}\n`);
  writeFileSync(
    join(options.out, `${name}.json`),
    `${JSON.stringify({ machine, date: new Date().toISOString(), options, size, notes, rows }, null, 2)}\n`,
  );
  process.stdout.write(`${header}\n${table}\n`);
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
  const cacheDir = options.smoke ? scratch : join(ROOT, 'bench', '.cache');
  const children: Child[] = [];
  try {
    const specs: StoreSpec[] = [];
    for (const backend of backends)
      specs.push(await ensureStore(backend, options.scale, { cacheDir, fresh: options.fresh, log }));
    if (specs[0] === undefined) throw new Error('no backend to bench');
    size = await datasetSize(specs[0]);
    poPaths = (await sampleIds(specs[0], 'purchase_orders', ROTATION)).map(
      (id) => `/v1/purchaseOrders/${id}`,
    );
    ihPaths = (await sampleIds(specs[0], 'inventory_entries', ROTATION)).map(
      (id) => `/v1/inventoryHistory/${id}`,
    );
    const larders: Larder[] = [];
    for (const spec of specs) {
      const larder = await startLarder(spec);
      children.push(larder.child);
      larders.push(larder);
    }
    const raw = await startChild('raw-server.ts');
    children.push(raw);
    await teachRaw(raw, larders[0]!);
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
    await runScenarios(raw, larders, prism);
    await rssRows(larders);
    for (const child of children.splice(0)) await child.stop();
    if (options.only.length === 0) {
      const sqlite = specs.find((spec) => spec.backend === 'sqlite');
      if (sqlite?.backend === 'sqlite') rows.push(await measureColdStart(sqlite.path, { log }));
      rows.push(...(await measureImports(backends, options.scale, scratch, log)));
      rows.push(...(await measureSeed(backends, options.scale, scratch, log)));
    }
  } finally {
    for (const child of children) await child.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  writeResults();
};

await main();
