import { type ParseArgsConfig, parseArgs } from 'node:util';
import { MAX_SQLITE_CACHE_MB, MIN_SQLITE_CACHE_MB } from '../src/shared/limits.js';

export type DatasetKey = 'demo' | 'unicode';

export interface BenchOptions {
  connections: number;
  /** Seconds per measured run. */
  duration: number;
  /** Seconds of discarded load before each measured run (JIT, caches). */
  warmup: number;
  /** 1 = one location with 100,000 purchase orders and 1,000,000 inventory entries. */
  scale: number;
  backends: ('sqlite' | 'postgres')[];
  smoke: boolean;
  prism: boolean;
  fresh: boolean;
  out: string;
  /** Scenario keys to run (all when empty). */
  only: string[];
  /** Directory for CPU profiles of the Larder server processes. */
  cpuProf: string | undefined;
  /** The datasets each scenario runs on: the demo generator's, and the same with non-ASCII text. */
  datasets: DatasetKey[];
  /** Larder is measured with each of these worker counts side by side (`larder serve --workers N`). */
  workers: number[];
  /** Extra `larder serve` flags for every Larder (the journal, rate limits, faults… on or off). */
  serveArgs: string[];
  /** PostgreSQL pool sizes measured side by side (`--pool-size N`); empty: the default only. */
  poolSizes: number[];
  /** The cost-against-size run (bench/scale.ts) instead of the scenarios. */
  scaleRun: boolean;
  /** Largest store of the scale run, in inventory entries. */
  scaleMax: number;
  /** The scale run's SQLite page cache per connection, in MiB (`--sqlite-cache-mb`); absent, Larder's default. */
  sqliteCacheMb: number | undefined;
  /** The cost run (bench/cost.ts): server CPU per request with each optional path off and on. */
  cost: boolean;
  /** Configurations of the cost run besides off (`--paths sandbox,rate-limit`); all when empty. */
  costPaths: string[];
  /** Alternating rounds of the cost run. */
  rounds: number;
  /** Server processes per configuration in the cost run (`--instances N`). */
  instances: number;
  /** The cost run starts a process per configuration rather than one serving them all (`--separate-processes`). */
  separateProcesses: boolean;
  /** Write the query plans of every search shape on the bench store to docs/query-plans.md, and stop. */
  explain: boolean;
}

/** The scenarios of a full run, by the key `--only` takes (their loads are in run.ts). */
export const SCENARIO_KEYS = [
  'get-po',
  'get-ih',
  'search-first',
  'search-live',
  'search-status',
  'search-deep',
  'search-ih',
  'search-ih-deep',
  'login',
  'token',
] as const;
export type ScenarioKey = (typeof SCENARIO_KEYS)[number];
/**
 * The one-shot measurements of a full run, which `--only` takes too: alone, with no server under load before
 * them (in a full run they follow minutes of load, while the machine may still be writing it back).
 */
export const ONE_SHOT_KEYS = ['cold-start', 'import', 'seed'] as const;
export type OneShotKey = (typeof ONE_SHOT_KEYS)[number];
/** The loads of the cost run, by the key its `--only` takes (cost.ts). */
export const COST_LOAD_KEYS = ['get-po', 'search-first'] as const;
export type CostLoadKey = (typeof COST_LOAD_KEYS)[number];
/** The configurations of the cost run, by the key `--paths` takes (cost.ts); `off` always runs. */
export const COST_PATH_KEYS = [
  'off',
  'sandbox',
  'journal-off',
  'journal-64',
  'rate-limit',
  'metrics',
  'access-log',
] as const;
export type CostPathKey = (typeof COST_PATH_KEYS)[number];

export const USAGE = `npm run bench -- [--connections N] [--duration S] [--warmup S] [--scale X]
  [--backend sqlite|postgres|both] [--smoke] [--no-prism] [--fresh] [--out DIR] [--only a,b] [--cpu-prof DIR]
  [--dataset demo,unicode] [--workers 1,2] [--serve-args="--flag value …"] [--pool-sizes 2,10,20]
npm run bench -- --scale [--scale-max 10000000] [--sqlite-cache-mb MIB] [--backend …] [--duration S] [--out DIR]
npm run bench -- --explain [--backend …] [--scale X]
npm run bench -- --cost [--rounds 5] [--instances 3] [--separate-processes] [--only get-po,search-first] [--paths sandbox,journal-off,journal-64,rate-limit,metrics,access-log] [--backend …] [--connections N] [--out DIR]
npm run bench -- --help`;

/** A mistake in the bench's own flags: run.ts prints it with the usage and exits 2, without a stack. */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(`${message}\n${USAGE}`);
    this.name = 'BenchUsageError';
  }
}

/** `--help` or `-h` anywhere: run.ts prints the usage and starts nothing. */
export const wantsHelp = (argv: string[]): boolean => argv.includes('--help') || argv.includes('-h');

const positive = (name: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!(value > 0)) throw new BenchUsageError(`--${name} must be a positive number, not ${raw}`);
  return value;
};

const integers = (name: string, raw: string | undefined, fallback: number[]): number[] => {
  if (raw === undefined) return fallback;
  const values = raw.split(',').map(Number);
  if (values.some((value) => !Number.isInteger(value) || value < 1))
    throw new BenchUsageError(`--${name} takes whole numbers separated by commas, not ${raw}`);
  return values;
};

/** Larder's own bounds, so that the scale run never starts a server that would refuse the value. */
const cacheMbOf = (raw: string): number => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < MIN_SQLITE_CACHE_MB || value > MAX_SQLITE_CACHE_MB)
    throw new BenchUsageError(
      `--sqlite-cache-mb takes a whole number of MiB from ${MIN_SQLITE_CACHE_MB} to ${MAX_SQLITE_CACHE_MB}, not ${raw}`,
    );
  return value;
};

/**
 * `--scale X` sizes the store (kept from the first bench); `--scale` alone, as the issue asks for it, is the
 * scale run. Told apart by whether a number follows.
 */
const scaleRunFlag = (argv: string[]): string[] =>
  argv.map((arg, i) =>
    arg === '--scale' && !(argv[i + 1] !== undefined && /^[0-9.]+$/.test(argv[i + 1]!)) ? '--scale-run' : arg,
  );

/** parseArgs's own errors (an unknown flag, a missing value) become usage errors that name the flag. */
const parseArgsOrUsage = <T extends ParseArgsConfig>(config: T) => {
  try {
    return parseArgs(config);
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'))
      throw new BenchUsageError(error.message);
    throw error;
  }
};

/** A comma list whose every item must be one of `known`: a typo would otherwise run nothing, silently. */
const keys = (name: string, raw: string | undefined, known: readonly string[]): string[] => {
  if (raw === undefined) return [];
  const values = raw.split(',');
  const unknown = values.filter((value) => !known.includes(value));
  if (unknown.length > 0)
    throw new BenchUsageError(`--${name} takes ${known.join(', ')}; not ${unknown.join(', ')}`);
  return values;
};

export const parseOptions = (argv: string[], defaultOut: string): BenchOptions => {
  const { values } = parseArgsOrUsage({
    args: scaleRunFlag(argv),
    options: {
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      scale: { type: 'string' },
      'scale-run': { type: 'boolean', default: false },
      'scale-max': { type: 'string' },
      'sqlite-cache-mb': { type: 'string' },
      backend: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'no-prism': { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
      dataset: { type: 'string' },
      workers: { type: 'string' },
      'serve-args': { type: 'string' },
      'pool-sizes': { type: 'string' },
      explain: { type: 'boolean', default: false },
      cost: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      instances: { type: 'string' },
      'separate-processes': { type: 'boolean', default: false },
      paths: { type: 'string' },
    },
  });
  const smoke = values.smoke;
  // The smoke stays on the embedded store unless asked: PostgreSQL roughly doubles its time.
  const backend = values.backend ?? (smoke ? 'sqlite' : 'both');
  if (backend !== 'sqlite' && backend !== 'postgres' && backend !== 'both')
    throw new BenchUsageError(`--backend must be sqlite, postgres or both, not ${backend}`);
  const warmup = values.warmup === undefined ? (smoke ? 0 : 1) : Number(values.warmup);
  if (!(warmup >= 0)) throw new BenchUsageError(`--warmup must be zero or more seconds`);
  const datasets = (values.dataset ?? 'demo,unicode').split(',');
  for (const dataset of datasets)
    if (dataset !== 'demo' && dataset !== 'unicode')
      throw new BenchUsageError(`--dataset takes demo and/or unicode, not ${dataset}`);
  const cacheMb = values['sqlite-cache-mb'];
  if (cacheMb !== undefined && !values['scale-run'])
    throw new BenchUsageError('--sqlite-cache-mb is for the scale run (--scale)');
  const serveArgs = (values['serve-args'] ?? '').split(/\s+/).filter((arg) => arg !== '');
  return {
    // The smoke only proves the bench still runs end to end: tiny store, sub-second runs, no peer.
    connections: Math.round(positive('connections', values.connections, smoke ? 10 : 50)),
    duration: positive('duration', values.duration, smoke ? 0.3 : 5),
    warmup,
    scale: positive('scale', values.scale, smoke ? 0.002 : 1),
    backends: backend === 'both' ? ['sqlite', 'postgres'] : [backend],
    smoke,
    prism: !smoke && !values['no-prism'],
    fresh: values.fresh,
    out: values.out ?? defaultOut,
    only: keys('only', values.only, values.cost ? COST_LOAD_KEYS : [...SCENARIO_KEYS, ...ONE_SHOT_KEYS]),
    cpuProf: values['cpu-prof'],
    datasets: datasets as DatasetKey[],
    workers: integers('workers', values.workers, [1]),
    serveArgs,
    poolSizes: integers('pool-sizes', values['pool-sizes'], []),
    scaleRun: values['scale-run'],
    explain: values.explain,
    cost: values.cost,
    costPaths: keys('paths', values.paths, COST_PATH_KEYS),
    rounds: Math.round(positive('rounds', values.rounds, smoke ? 1 : 5)),
    instances: Math.round(positive('instances', values.instances, smoke ? 1 : 3)),
    separateProcesses: values['separate-processes'],
    scaleMax: Math.round(positive('scale-max', values['scale-max'], smoke ? 20_000 : 10_000_000)),
    sqliteCacheMb: cacheMb === undefined ? undefined : cacheMbOf(cacheMb),
  };
};
