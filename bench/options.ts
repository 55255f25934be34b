import { parseArgs } from 'node:util';

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
}

export const USAGE = `npm run bench -- [--connections N] [--duration S] [--warmup S] [--scale X]
  [--backend sqlite|postgres|both] [--smoke] [--no-prism] [--fresh] [--out DIR] [--only a,b] [--cpu-prof DIR]`;

const positive = (name: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!(value > 0)) throw new Error(`--${name} must be a positive number, not ${raw}\n${USAGE}`);
  return value;
};

export const parseOptions = (argv: string[], defaultOut: string): BenchOptions => {
  const { values } = parseArgs({
    args: argv,
    options: {
      connections: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      scale: { type: 'string' },
      backend: { type: 'string' },
      smoke: { type: 'boolean', default: false },
      'no-prism': { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
  });
  const smoke = values.smoke;
  // The smoke stays on the embedded store unless asked: PostgreSQL roughly doubles its time.
  const backend = values.backend ?? (smoke ? 'sqlite' : 'both');
  if (backend !== 'sqlite' && backend !== 'postgres' && backend !== 'both')
    throw new Error(`--backend must be sqlite, postgres or both, not ${backend}\n${USAGE}`);
  const warmup = values.warmup === undefined ? (smoke ? 0 : 1) : Number(values.warmup);
  if (!(warmup >= 0)) throw new Error(`--warmup must be zero or more seconds\n${USAGE}`);
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
    only: values.only === undefined ? [] : values.only.split(','),
    cpuProf: values['cpu-prof'],
  };
};
