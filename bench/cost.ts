import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCATION_HEADER } from '../src/shared/limits.js';
import { type Child, startChild } from './children.js';
import { createBenchClient, logIn } from './larder-process.js';
import { measure } from './load.js';
import type { CostLoadKey, CostPathKey } from './options.js';
import { machineLine, median } from './report.js';
import { DATABASE_URL, openSpec, type StoreSpec } from './stores.js';

/**
 * What each optional path costs (`npm run bench -- --cost`): the server's own CPU time per request, with the path
 * off and on, on the same store, in alternating rounds. Throughput ratios on a 2-core machine where the load
 * generator shares the cores swing ±0.1 run to run, which hides a 5% cost; CPU time per request, read by the
 * server itself (process.cpuUsage) around a fixed number of requests, does not depend on how the cores were shared.
 * Every configuration runs at once in its own process, so a round measures each in turn within seconds.
 */

export interface CostPath {
  key: CostPathKey;
  label: string;
  env: Record<string, string>;
}

export const COST_PATHS: readonly CostPath[] = [
  { key: 'off', label: 'all optional paths off', env: {} },
  { key: 'sandbox', label: 'admin API + journal (--admin-token)', env: { LARDER_BENCH_SANDBOX: '1' } },
  // The same with a ring of 64 entries (4.5 KB) instead of 10,000 (720 KB): whether the ring's cache footprint costs.
  // The admin API without its journal (--journal-size 0): the journal's own cost is the sandbox's less this.
  {
    key: 'journal-off',
    label: 'admin API, journal off (--journal-size 0)',
    env: { LARDER_BENCH_SANDBOX: '1', LARDER_BENCH_JOURNAL_SIZE: '0' },
  },
  {
    key: 'journal-64',
    label: 'the same, 64-entry journal (--journal-size 64)',
    env: { LARDER_BENCH_SANDBOX: '1', LARDER_BENCH_JOURNAL_SIZE: '64' },
  },
  {
    key: 'rate-limit',
    label: '--rate-limit platform, never triggering',
    env: { LARDER_BENCH_RATE_LIMIT: 'platform-high' },
  },
  { key: 'metrics', label: 'metrics (--metrics-port)', env: { LARDER_BENCH_METRICS: '1' } },
  { key: 'access-log', label: 'access log (--log-level info)', env: { LARDER_BENCH_ACCESS_LOG: '1' } },
];

interface CostLoad {
  key: CostLoadKey;
  label: string;
  method: 'GET' | 'POST';
  paths: readonly string[];
  body?: string;
  /** Requests per measurement: a second or two of load. */
  requests: number;
}

export interface CostInput {
  spec: StoreSpec;
  location: string;
  poPaths: readonly string[];
  rounds: number;
  /**
   * Server processes per configuration. One process's CPU per request is steady from round to round, but two
   * processes of the same configuration differ by up to a fifth (JIT and memory layout), which alone would hide
   * a 5% cost: each figure is taken over several.
   */
  instances: number;
  connections: number;
  out: string;
  /** Request keys to measure (get-po, search-first); all when empty. */
  only: readonly string[];
  /** Configuration keys to measure besides off (sandbox, rate-limit, metrics, access-log); all when empty. */
  paths: readonly string[];
  /**
   * One server process per configuration, instead of one process serving every configuration on its own port.
   * Two processes of one configuration differ by up to a fifth in CPU per request (JIT, memory layout); in one
   * process the configurations share all of that, and each measurement's CPU time is the loaded server's.
   */
  separateProcesses: boolean;
  /** Only proves the run works (`--smoke`): a hundredth of the requests. */
  smoke: boolean;
  /** Writes a CPU profile of each configuration's server into <dir>/<configuration>/. */
  cpuProf: string | undefined;
  log: (line: string) => void;
}

interface Server {
  path: CostPath;
  instance: number;
  url: string;
  child: Child;
  token: string;
}

const fire = async (server: Server, load: CostLoad, input: CostInput): Promise<number> => {
  const { failures } = await measure(
    server.url,
    {
      method: load.method,
      paths: load.paths,
      headers: {
        authorization: `Bearer ${server.token}`,
        [LOCATION_HEADER]: input.location,
        ...(load.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(load.body === undefined ? {} : { body: load.body }),
    },
    { connections: input.connections, amount: load.requests },
  );
  return failures;
};

interface CpuUsage {
  user: number;
  system: number;
}

/** Server CPU µs per request over `amount` requests: user (the JavaScript and what it calls) and system. */
const measureOnce = async (server: Server, load: CostLoad, input: CostInput): Promise<CpuUsage> => {
  const before = await server.child.ask<CpuUsage>('cpu', 'cpu');
  const failures = await fire(server, load, input);
  const after = await server.child.ask<CpuUsage>('cpu', 'cpu');
  if (failures > 0) throw new Error(`${server.path.key} ${load.key}: ${failures} failed requests`);
  return {
    user: (after.user - before.user) / load.requests,
    system: (after.system - before.system) / load.requests,
  };
};

const SERVER_CPU = 0;
const LOAD_CPU = 1;

/** Pins a process and all its threads to one CPU (Linux taskset; without it the figures are only noisier). */
const pin = (pid: number, cpu: number): void => {
  const result = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`taskset could not pin process ${pid} to CPU ${cpu}`);
};

export const runCost = async (input: CostInput): Promise<void> => {
  const { spec, log } = input;
  const allLoads: CostLoad[] = [
    {
      key: 'get-po',
      label: 'GET purchase order by id',
      method: 'GET',
      paths: input.poPaths,
      requests: 40_000,
    },
    {
      key: 'search-first',
      label: 'First search page (100 purchase orders, includeArchived)',
      method: 'POST',
      paths: ['/v1/purchaseOrders/search'],
      body: JSON.stringify({ includeArchived: true }),
      requests: 2_000,
    },
  ];
  const loads = allLoads
    .filter((load) => input.only.length === 0 || input.only.includes(load.key))
    .map((load) => (input.smoke ? { ...load, requests: Math.ceil(load.requests / 100) } : load));
  const paths = COST_PATHS.filter(
    (path) => path.key === 'off' || input.paths.length === 0 || input.paths.includes(path.key),
  );
  const servers: Server[] = [];
  // The load generator on one core, every server on the other: left to the scheduler, a server sometimes shares
  // a core with the load generator, and its CPU per request then swings by a third between runs.
  pin(process.pid, LOAD_CPU);
  try {
    // Each instance starts the configurations in another order: the first server started measured a few percent
    // slower than a later one of the same configuration (seen with two identical ones).
    for (let instance = 0; instance < input.instances; instance++) {
      const order = paths.map((_, i) => paths[(i + instance) % paths.length]!);
      const store = await openSpec(spec);
      const clients = await Promise.all(order.map(() => createBenchClient(store)));
      await store.close();
      const start = (env: Record<string, string>, profileDir: string) =>
        startChild('server-child.mjs', {
          // The database's address as every server child gets it (larder-process.ts): open-spec.mjs reads it there.
          env: { ...env, LARDER_BENCH_STORE: JSON.stringify(spec), LARDER_BENCH_DATABASE_URL: DATABASE_URL },
          execArgv: [
            '--expose-gc',
            ...(input.cpuProf === undefined
              ? []
              : ['--cpu-prof', `--cpu-prof-dir=${join(input.cpuProf, profileDir, String(instance))}`]),
          ],
        });
      // One process serving every configuration (the default), or one process each (--separate-processes).
      const children = input.separateProcesses
        ? await Promise.all(order.map((path) => start(path.env, path.key)))
        : [await start({ LARDER_BENCH_CONFIGS: JSON.stringify(order.map((path) => path.env)) }, 'all')];
      for (const child of children) pin(await child.ask<number>('pid', 'pid'), SERVER_CPU);
      for (const [i, path] of order.entries()) {
        const child = input.separateProcesses ? children[i]! : children[0]!;
        const url = input.separateProcesses ? child.url : child.urls?.[i];
        if (url === undefined) throw new Error(`the server child did not start configuration ${path.key}`);
        servers.push({ path, instance, child, url, token: await logIn(url, clients[i]!) });
      }
    }
    const samples = new Map<string, CpuUsage[]>();
    /** Per round, the mean over a configuration's instances (user + system µs), for the paired cost. */
    const rounds = new Map<string, number[]>();
    for (const load of loads)
      for (const server of servers) {
        // Warm-up: JIT, caches, the journal's ring filled once.
        await fire(server, load, input);
        samples.set(`${load.key}/${server.path.key}`, []);
        rounds.set(`${load.key}/${server.path.key}`, []);
      }
    for (let round = 0; round < input.rounds; round++) {
      for (const load of loads) {
        // A different order each round, so drift on the machine does not always favour the same path.
        const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
        const totals = new Map<string, number[]>();
        for (const server of order) {
          const perRequest = await measureOnce(server, load, input);
          const key = `${load.key}/${server.path.key}`;
          samples.get(key)!.push(perRequest);
          totals.set(key, [...(totals.get(key) ?? []), perRequest.user + perRequest.system]);
        }
        for (const [key, values] of totals)
          rounds.get(key)!.push(values.reduce((sum, value) => sum + value, 0) / values.length);
      }
      log(`[cost] round ${round + 1} of ${input.rounds}`);
    }
    const lines = [
      '# What each optional path costs: server CPU per request',
      '',
      `Machine: ${machineLine()}`,
      '',
      `Command: \`npm run bench -- --cost --rounds ${input.rounds} --instances ${input.instances}\` · ${new Date().toISOString()} · ${spec.backend} · ${input.connections} connections · each figure the median over ${input.instances} server processes per configuration × ${input.rounds} alternating rounds of a fixed number of requests (${loads.map((load) => `${load.requests.toLocaleString('en-US')} for ${load.key}`).join(', ')}): the server's own CPU time (process.cpuUsage) divided by the requests. ${input.separateProcesses ? 'Every configuration runs at the same time in its own process' : 'Every configuration is served by the same process, each on its own port'} on the same store, the servers pinned to CPU 0 and the load generator to CPU 1. User time is the JavaScript and what it calls, where an optional path does its work; system time is mostly the sockets, and moves with how the load generator and the server happened to share the two cores, so the user column is the steadier measure of a path's cost.`,
      '',
      '| Request | Configuration | user + system µs | user µs (min–max) | Cost vs off, user | Cost vs off, user + system | Cost vs off, paired by round |',
      '|---|---|---:|---:|---:|---:|---:|',
    ];
    const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
    const results: Record<string, unknown>[] = [];
    for (const load of loads) {
      const offSamples = samples.get(`${load.key}/off`)!;
      const offRounds = rounds.get(`${load.key}/off`)!;
      const offUser = median(offSamples.map((sample) => sample.user));
      const offTotal = median(offSamples.map((sample) => sample.user + sample.system));
      for (const server of servers.filter((candidate) => candidate.instance === 0)) {
        const values = samples.get(`${load.key}/${server.path.key}`)!;
        const users = values.map((sample) => sample.user);
        const user = median(users);
        const total = median(values.map((sample) => sample.user + sample.system));
        const off = server.path.key === 'off';
        // Each round measures every configuration within seconds: its ratio to off cancels slower drift.
        const paired = median(
          rounds.get(`${load.key}/${server.path.key}`)!.map((total, round) => total / offRounds[round]! - 1),
        );
        results.push({
          request: load.key,
          path: server.path.key,
          user,
          total,
          costUser: (user - offUser) / offUser,
          costTotal: (total - offTotal) / offTotal,
          costPaired: paired,
          samples: values,
        });
        lines.push(
          `| ${load.label} | ${server.path.label} | ${total.toFixed(1)} | ${user.toFixed(1)} (${Math.min(...users).toFixed(1)}–${Math.max(...users).toFixed(1)}) | ${off ? '' : percent((user - offUser) / offUser)} | ${off ? '' : percent((total - offTotal) / offTotal)} | ${off ? '' : percent(paired)} |`,
        );
      }
    }
    mkdirSync(input.out, { recursive: true });
    writeFileSync(join(input.out, `cost-${spec.backend}.md`), `${lines.join('\n')}\n`);
    writeFileSync(join(input.out, `cost-${spec.backend}.json`), `${JSON.stringify(results, null, 2)}\n`);
    log(lines.join('\n'));
  } finally {
    for (const child of new Set(servers.map((server) => server.child))) await child.stop();
  }
};
