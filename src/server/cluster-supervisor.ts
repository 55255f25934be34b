import { type Clock, systemClock } from '../shared/clock.js';

/**
 * Keeps `workers` processes of a node:cluster serving, with the rules `larder serve --workers N` follows:
 *
 * - a worker that exits before it ever listened (port in use, bad schema, database down) would exit again, so the
 *   cluster stops with exit code 1; but one killed by a signal before it listened (`kill -9`, the OOM killer) was
 *   stopped from outside, and is replaced as a crash is (so one that segfaults at every start is a crash loop);
 * - a worker that dies after it was serving is replaced after `restartDelayMs`;
 * - but a worker slot whose processes die `maxCrashes` times within `windowMs` is crash-looping: the cluster stops
 *   with exit code 1 and says so, instead of restarting it forever;
 * - a worker that exits with code 0 after serving stopped cleanly (its own drain on SIGTERM/SIGINT: an operator's
 *   `kill PID`): replaced after `restartDelayMs` too, logged at info, and not counted as a death of its slot.
 *
 * Everything it touches is injected (the cluster, the clock, the timer), so tests drive it with a fake
 * EventEmitter and a fake clock: no processes, no sleeping. In production pass `cluster` from `node:cluster`.
 */

/** What the supervisor uses of a `cluster.Worker`. */
export interface SupervisedWorker {
  readonly id: number;
  readonly process: { readonly pid?: number | undefined; kill(signal?: NodeJS.Signals): boolean };
}

export interface ListeningAddress {
  address: string;
  port: number;
}

/** What the supervisor uses of `node:cluster` (the primary's side): `cluster` itself satisfies it. */
export interface ClusterLike<W extends SupervisedWorker = SupervisedWorker> {
  fork(): W;
  on(event: 'exit', listener: (worker: W, code: number | null, signal: string | null) => void): unknown;
  on(event: 'listening', listener: (worker: W, address: ListeningAddress) => void): unknown;
  off(event: 'exit', listener: (worker: W, code: number | null, signal: string | null) => void): unknown;
  off(event: 'listening', listener: (worker: W, address: ListeningAddress) => void): unknown;
}

/** Runs `task` after `ms`; the returned function cancels it. */
export type Schedule = (task: () => void, ms: number) => () => void;

export const realSchedule: Schedule = (task, ms) => {
  const timer = setTimeout(task, ms);
  return () => clearTimeout(timer);
};

export interface SupervisorOutcome {
  /** 0 after stop(); 1 when the cluster stopped itself. */
  exitCode: 0 | 1;
  /** Why it stopped, for the operator (one line, no trailing newline). */
  reason: string;
}

export interface SupervisorOptions<W extends SupervisedWorker = SupervisedWorker> {
  cluster: ClusterLike<W>;
  /** Worker processes to keep serving (at least 1). */
  workers: number;
  /** Deaths of one slot's workers within `windowMs` that stop the cluster (default 5). */
  maxCrashes?: number;
  /** Default 60 000 (a minute). */
  windowMs?: number;
  /** Wait before replacing a worker that died after serving (default 1 000). */
  restartDelayMs?: number;
  /** After stop()'s SIGTERM, workers still alive this long get SIGKILL (default 10 000). */
  killAfterMs?: number;
  clock?: Clock;
  schedule?: Schedule;
  /** Operator messages (one line each, no newline): deaths at `warn`, clean stops at `info`, with the replacement. */
  log?: (level: 'info' | 'warn', line: string) => void;
  /** Each time a worker listens; `first` is true once, for the first of the cluster (announce the URL then). */
  onListening?: (address: ListeningAddress, first: boolean) => void;
  /** Just before each fork, with how many workers are listening then (the cluster's settings may be set here). */
  beforeFork?: (listening: number) => void;
}

export interface Supervisor {
  /** Forks the workers; call once. */
  start(): void;
  /** SIGTERMs every worker and resolves once all have exited (exit code 0 unless it had already stopped). */
  stop(reason?: string): Promise<SupervisorOutcome>;
  /** Resolves once the cluster has stopped, for whatever reason, and every worker has exited. */
  readonly done: Promise<SupervisorOutcome>;
  /** Workers alive now (forked, no exit seen yet). */
  readonly alive: number;
}

const describeExit = (code: number | null, signal: string | null) => signal ?? String(code);

export const createSupervisor = <W extends SupervisedWorker>(options: SupervisorOptions<W>): Supervisor => {
  const {
    cluster,
    workers,
    maxCrashes = 5,
    windowMs = 60_000,
    restartDelayMs = 1_000,
    killAfterMs = 10_000,
    clock = systemClock,
    schedule = realSchedule,
    log = () => {},
    onListening,
    beforeFork,
  } = options;
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be ≥ 1, not ${workers}`);
  if (!Number.isInteger(maxCrashes) || maxCrashes < 1)
    throw new RangeError(`maxCrashes must be ≥ 1, not ${maxCrashes}`);

  /** Live workers by id, with the slot each fills. */
  const live = new Map<number, { worker: W; slot: number }>();
  const listened = new Set<number>();
  /** Per slot, when its workers died (epoch ms), within the window. */
  const deaths: number[][] = Array.from({ length: workers }, () => []);
  const pending = new Set<() => void>();
  let anyListened = false;
  let outcome: SupervisorOutcome | undefined;
  let resolveDone!: (outcome: SupervisorOutcome) => void;
  const done = new Promise<SupervisorOutcome>((resolve) => {
    resolveDone = resolve;
  });

  const later = (task: () => void, ms: number) => {
    const cancel = schedule(() => {
      pending.delete(cancel);
      task();
    }, ms);
    pending.add(cancel);
  };

  const fork = (slot: number) => {
    beforeFork?.(listened.size);
    const worker = cluster.fork();
    live.set(worker.id, { worker, slot });
  };

  const finishIfEmpty = () => {
    if (outcome === undefined || live.size > 0) return;
    cluster.off('exit', onExit);
    cluster.off('listening', onListen);
    for (const cancel of pending) cancel();
    pending.clear();
    resolveDone(outcome);
  };

  const halt = (next: SupervisorOutcome) => {
    if (outcome !== undefined) return;
    outcome = next;
    for (const cancel of pending) cancel();
    pending.clear();
    for (const { worker } of live.values()) worker.process.kill('SIGTERM');
    if (live.size > 0)
      later(() => {
        for (const { worker } of live.values()) worker.process.kill('SIGKILL');
      }, killAfterMs);
    finishIfEmpty();
  };

  function onExit(worker: W, code: number | null, signal: string | null) {
    const entry = live.get(worker.id);
    if (entry === undefined) return;
    live.delete(worker.id);
    const served = listened.delete(worker.id);
    if (outcome !== undefined) return finishIfEmpty();
    const how = describeExit(code, signal);
    const who = `worker ${worker.process.pid ?? worker.id}`;
    if (!served && signal === null) {
      const reason = `${who} exited (${how}) before serving; stopping.`;
      log('warn', reason);
      return halt({ exitCode: 1, reason });
    }
    const replace = () =>
      later(() => {
        if (outcome === undefined) fork(entry.slot);
      }, restartDelayMs);
    // A serving worker exits 0 only at the end of its own drain, on a signal it was sent alone (`kill PID`): a crash
    // exits 1 (an uncaught error) or by a signal it does not handle (SIGKILL, SIGSEGV), so neither is mistaken here.
    if (code === 0 && signal === null) {
      log('info', `${who} stopped cleanly (exit code 0); starting another.`);
      return replace();
    }
    const now = clock.now();
    const recent = deaths[entry.slot]!.filter((at) => now - at < windowMs);
    recent.push(now);
    deaths[entry.slot] = recent;
    if (recent.length >= maxCrashes) {
      const reason = `${who} exited (${how}): worker slot ${entry.slot + 1} died ${recent.length} times within ${windowMs / 1000} s (limit ${maxCrashes}); stopping instead of restarting it again.`;
      log('warn', reason);
      return halt({ exitCode: 1, reason });
    }
    log('warn', `${who} exited (${how})${served ? '' : ' before serving'}; starting another.`);
    replace();
  }

  function onListen(worker: W, address: ListeningAddress) {
    if (!live.has(worker.id) || outcome !== undefined) return;
    listened.add(worker.id);
    const first = !anyListened;
    anyListened = true;
    onListening?.(address, first);
  }

  let started = false;
  return {
    start: () => {
      if (started) throw new Error('the supervisor was started already');
      started = true;
      cluster.on('exit', onExit);
      cluster.on('listening', onListen);
      for (let slot = 0; slot < workers; slot++) fork(slot);
    },
    stop: (reason = 'stopped on request') => {
      halt({ exitCode: 0, reason });
      return done;
    },
    done,
    get alive() {
      return live.size;
    },
  };
};
