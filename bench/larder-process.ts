import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientCredentials } from '../src/auth/clients.js';
import { RETAIL_INVENTORY_READ, RETAIL_READ } from '../src/auth/scopes.js';
import type { Store } from '../src/storage/store.js';
import { type Child, startChild } from './children.js';
import { DATABASE_URL, type StoreSpec } from './stores.js';

const ROOT = join(import.meta.dirname, '..');
const PROBE = join(import.meta.dirname, 'probe.mjs');

/** What the probe (bench/probe.mjs) wrote for one process. */
interface ProbeReport {
  pid: number;
  worker: boolean;
  generation: number;
  p99: number;
  max: number;
  /** The longest garbage-collection pause of the stretch (ms). */
  gcMax: number;
  samples: number;
  rss: number;
}

/** The event loop's delay over a stretch of load, worst process first: what no request may hold it for. */
export interface LoopDelay {
  p99: number;
  max: number;
  /** The longest garbage-collection pause in any of those processes over the same stretch. */
  gcMax: number;
}

export interface LarderProcess {
  child: Child;
  probe: DelayProbe;
}

export interface LarderStart {
  spec: StoreSpec;
  /** Extra `larder serve` flags (only with `cli`). */
  serveArgs: readonly string[];
  /** Run the real `larder serve` (workers, serve flags) rather than bench/server-child.mjs. */
  cli: boolean;
  workers: number;
  cpuProf: string | undefined;
}

const reports = (dir: string): ProbeReport[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as ProbeReport);

/** Signals every probed process and waits until each has written its next report. */
const signalAll = async (dir: string): Promise<ProbeReport[]> => {
  const before = new Map(reports(dir).map((report) => [report.pid, report.generation]));
  for (const pid of before.keys()) {
    try {
      process.kill(pid, 'SIGUSR2');
    } catch {
      before.delete(pid); // a worker that has gone
    }
  }
  const deadline = Date.now() + 5000;
  for (;;) {
    const now = reports(dir).filter((report) => before.has(report.pid));
    if (now.every((report) => report.generation > before.get(report.pid)!) || Date.now() > deadline)
      return now;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/** The event-loop probe for the processes one server runs: what to start them with, and their readings. */
export interface DelayProbe {
  env: Record<string, string>;
  execArgv: string[];
  /** Starts a fresh stretch of event-loop delay samples in every process. */
  reset(): Promise<void>;
  /** The delay since the last reset (the worst p99 and max over the processes). */
  read(): Promise<LoopDelay>;
  /** RSS of every process summed (the primary and its workers), and of the largest one. */
  rss(): Promise<{ total: number; largest: number }>;
  /** The processes that have reported so far (after a reset, all of them). */
  pids(): number[];
  close(): void;
}

export const createDelayProbe = (): DelayProbe => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-probe-'));
  return {
    env: { LARDER_BENCH_PROBE_DIR: dir },
    execArgv: [`--import=${PROBE}`],
    reset: async () => {
      await signalAll(dir);
    },
    read: async () => {
      // The primary of a cluster only hands out connections: the workers' loops are the ones requests hold.
      const all = await signalAll(dir);
      const serving = all.some((report) => report.worker) ? all.filter((report) => report.worker) : all;
      return {
        p99: Math.max(0, ...serving.map((report) => report.p99)),
        max: Math.max(0, ...serving.map((report) => report.max)),
        gcMax: Math.max(0, ...serving.map((report) => report.gcMax)),
      };
    },
    rss: async () => {
      const all = await signalAll(dir);
      return {
        total: all.reduce((sum, report) => sum + report.rss, 0),
        largest: Math.max(0, ...all.map((report) => report.rss)),
      };
    },
    pids: () => reports(dir).map((report) => report.pid),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/** `larder serve` itself, on the bench store: the only way to run `--workers N` or any other serve flag. */
const startCli = async (
  start: LarderStart,
  env: Record<string, string>,
  execArgv: readonly string[],
): Promise<Child> => {
  const store =
    start.spec.backend === 'sqlite'
      ? [
          '--db',
          start.spec.path,
          ...(start.spec.cacheMb === undefined ? [] : ['--sqlite-cache-mb', String(start.spec.cacheMb)]),
        ]
      : ['--database-url', `${DATABASE_URL}?options=-c%20search_path%3D${start.spec.schema}`];
  const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--no-demo', ...store];
  // As the in-process child: no access log unless the run asks for it (--serve-args="--log-level info").
  args.push('--workers', String(start.workers), '--log-level', 'warn', ...start.serveArgs);
  const child: ChildProcess = spawn(
    process.execPath,
    [...execArgv, join(ROOT, 'bin', 'larder.js'), ...args],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`larder serve exited (${code}): ${output}`)));
  });
  return {
    url,
    ask: () => Promise.reject(new Error('larder serve has no IPC')),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
};

/**
 * Starts Larder as the bench measures it: alone in its process (bench/server-child.mjs, compiled dist/, no
 * TypeScript loader), or as `larder serve` when workers or serve flags are asked for. Either way every process
 * loads the event-loop probe.
 */
export const startLarderProcess = async (start: LarderStart): Promise<LarderProcess> => {
  const probe = createDelayProbe();
  const env = {
    LARDER_BENCH_STORE: JSON.stringify(start.spec),
    LARDER_BENCH_DATABASE_URL: DATABASE_URL,
    ...probe.env,
  };
  const profile = start.cpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${start.cpuProf}`];
  const execArgv = [...probe.execArgv, ...profile];
  // node:cluster starts its workers with the primary's execArgv: they get the probe (and the profiler) too.
  const child = start.cli
    ? await startCli(start, env, execArgv)
    : await startChild('server-child.mjs', { env, execArgv: ['--expose-gc', ...execArgv] });
  const stop = child.stop;
  return {
    child: {
      ...child,
      stop: async () => {
        await stop();
        probe.close();
      },
    },
    probe,
  };
};

export const LOGIN_PATH = '/authentication/v1/authentication/login';

/** A client of the bench's own, granted everything: made before the server loads its client table. */
export const createBenchClient = (store: Store) =>
  createClientCredentials(store, {
    name: 'bench',
    allLocations: true,
    scopes: [RETAIL_INVENTORY_READ, RETAIL_READ],
  });

/** Logs the client in on a running Larder; the access token. */
export const logIn = async (
  url: string,
  client: { clientId: string; clientSecret: string },
): Promise<string> => {
  const response = await fetch(`${url}${LOGIN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      userAccessType: 'PLATFORM_MACHINE_CLIENT',
    }),
  });
  const { token } = (await response.json()) as { token: { accessToken: string } };
  return token.accessToken;
};
