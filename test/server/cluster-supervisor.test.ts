import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import {
  type ClusterLike,
  createSupervisor,
  type Schedule,
  type SupervisorOptions,
} from '../../src/server/cluster-supervisor.js';
import { createTestClock } from '../../src/shared/clock.js';

// The real cluster module is what production passes.
const real: ClusterLike = cluster;
void real;

interface FakeWorker {
  id: number;
  process: { pid: number; kill(signal?: NodeJS.Signals): boolean };
  signals: string[];
}

/** A cluster that forks nothing: tests emit its `exit` and `listening` events themselves. */
const fakeCluster = () => {
  const events = new EventEmitter();
  const forked: FakeWorker[] = [];
  let nextId = 1;
  const fake = Object.assign(events, {
    forked,
    fork: (): FakeWorker => {
      const id = nextId++;
      const signals: string[] = [];
      const worker: FakeWorker = {
        id,
        signals,
        process: {
          pid: 1000 + id,
          kill: (signal = 'SIGTERM') => {
            signals.push(signal);
            return true;
          },
        },
      };
      forked.push(worker);
      return worker;
    },
    listen: (worker: FakeWorker, port = 8080) =>
      events.emit('listening', worker, { address: '127.0.0.1', port }),
    exit: (worker: FakeWorker, code: number | null = 1, signal: string | null = null) =>
      events.emit('exit', worker, code, signal),
  });
  return fake;
};

/** Timers on the fake clock: `advance` runs what falls due, in order. */
const fakeTime = () => {
  const clock = createTestClock(0);
  let tasks: { at: number; task: () => void }[] = [];
  const schedule: Schedule = (task, ms) => {
    const entry = { at: clock.now() + ms, task };
    tasks.push(entry);
    return () => {
      tasks = tasks.filter((t) => t !== entry);
    };
  };
  const advance = (ms: number) => {
    const until = clock.now() + ms;
    for (;;) {
      const due = tasks.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      tasks = tasks.filter((t) => t !== due);
      clock.set(due.at);
      due.task();
    }
    clock.set(until);
  };
  return { clock, schedule, advance, pending: () => tasks.length };
};

const setup = (options: Partial<SupervisorOptions<FakeWorker>> = {}) => {
  const fake = fakeCluster();
  const time = fakeTime();
  const lines: string[] = [];
  const levels: string[] = [];
  const announced: [number, boolean][] = [];
  let settled: unknown;
  const supervisor = createSupervisor<FakeWorker>({
    cluster: fake,
    workers: 2,
    clock: time.clock,
    schedule: time.schedule,
    log: (level, line) => {
      levels.push(level);
      lines.push(line);
    },
    onListening: (address, first) => announced.push([address.port, first]),
    ...options,
  });
  void supervisor.done.then((outcome) => {
    settled = outcome;
  });
  supervisor.start();
  return { fake, time, lines, levels, announced, supervisor, settled: () => settled };
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('forks the workers and announces the first that listens', () => {
  const { fake, announced, supervisor } = setup({ workers: 3 });
  assert.equal(fake.forked.length, 3);
  assert.equal(supervisor.alive, 3);
  for (const worker of fake.forked) fake.listen(worker);
  assert.deepEqual(announced, [
    [8080, true],
    [8080, false],
    [8080, false],
  ]);
});

test('a worker that dies after serving is replaced after the restart delay', async () => {
  const { fake, time, lines, supervisor, settled } = setup();
  const [a, b] = fake.forked;
  fake.listen(a!);
  fake.listen(b!);
  fake.exit(a!, null, 'SIGSEGV');
  assert.deepEqual(lines, ['worker 1001 exited (SIGSEGV); starting another.']);
  assert.equal(fake.forked.length, 2);
  time.advance(999);
  assert.equal(fake.forked.length, 2);
  time.advance(1);
  assert.equal(fake.forked.length, 3);
  assert.equal(supervisor.alive, 2);
  await tick();
  assert.equal(settled(), undefined);
});

test('a worker that stopped cleanly after serving (exit code 0: its drain on `kill PID`) is replaced at info level and is no crash', async () => {
  const { fake, time, lines, levels, settled } = setup({ workers: 1, maxCrashes: 2 });
  fake.listen(fake.forked[0]!);
  // Stopped again and again, far more often than the crash-loop limit allows within the window.
  for (let i = 0; i < 5; i++) {
    fake.exit(fake.forked.at(-1)!, 0);
    time.advance(1000);
    fake.listen(fake.forked.at(-1)!);
  }
  assert.equal(fake.forked.length, 6, 'each was replaced after the restart delay');
  await tick();
  assert.equal(settled(), undefined, 'the cluster serves on');
  assert.equal(lines[0], 'worker 1001 stopped cleanly (exit code 0); starting another.');
  assert.deepEqual(new Set(levels), new Set(['info']));
  // A clean stop leaves the slot's crash count as it was: one crash is still one.
  fake.exit(fake.forked.at(-1)!, 1);
  assert.equal(lines.at(-1), 'worker 1006 exited (1); starting another.');
  assert.equal(levels.at(-1), 'warn');
  time.advance(1000);
  fake.listen(fake.forked.at(-1)!);
  fake.exit(fake.forked.at(-1)!, null, 'SIGKILL');
  assert.match(lines.at(-1)!, /^worker 1007 exited \(SIGKILL\): worker slot 1 died 2 times/);
});

test('a worker that exits with code 0 before it ever listened still stops the cluster', async () => {
  const { fake, levels, supervisor } = setup({ workers: 1 });
  fake.exit(fake.forked[0]!, 0);
  assert.deepEqual(await supervisor.done, {
    exitCode: 1,
    reason: 'worker 1001 exited (0) before serving; stopping.',
  });
  assert.deepEqual(levels, ['warn']);
});

test('a worker that dies before it ever listened stops the cluster with exit code 1', async () => {
  const { fake, lines, supervisor } = setup();
  const [a, b] = fake.forked;
  fake.listen(b!);
  fake.exit(a!, 1);
  assert.deepEqual(lines, ['worker 1001 exited (1) before serving; stopping.']);
  assert.deepEqual(b!.signals, ['SIGTERM']);
  fake.exit(b!, null, 'SIGTERM');
  assert.deepEqual(await supervisor.done, {
    exitCode: 1,
    reason: 'worker 1001 exited (1) before serving; stopping.',
  });
  assert.equal(fake.forked.length, 2, 'nothing replaced');
  assert.equal(fake.listenerCount('exit'), 0, 'stops listening to the cluster');
});

test('a worker killed by a signal before it ever listened (kill -9, the OOM killer) is replaced as a crash, and the others go on', async () => {
  const { fake, time, lines, levels, supervisor, settled } = setup();
  const [a, b] = fake.forked;
  fake.listen(b!);
  fake.exit(a!, null, 'SIGKILL');
  assert.deepEqual(lines, ['worker 1001 exited (SIGKILL) before serving; starting another.']);
  assert.deepEqual(levels, ['warn']);
  assert.deepEqual(b!.signals, [], 'the serving worker is left alone');
  time.advance(1000);
  assert.equal(fake.forked.length, 3);
  fake.listen(fake.forked[2]!);
  await tick();
  assert.equal(settled(), undefined, 'the cluster goes on');
  void supervisor.stop();
});

test('a slot whose workers die by a signal at every start is a crash loop', async () => {
  const { fake, time, supervisor } = setup({ workers: 1, maxCrashes: 3 });
  for (let death = 1; death <= 3; death++) {
    fake.exit(fake.forked.at(-1)!, null, 'SIGSEGV');
    time.advance(1000);
  }
  assert.deepEqual(await supervisor.done, {
    exitCode: 1,
    reason:
      'worker 1003 exited (SIGSEGV): worker slot 1 died 3 times within 60 s (limit 3); stopping instead of restarting it again.',
  });
  assert.equal(fake.forked.length, 3);
});

test('a replacement that dies before listening stops the cluster too', async () => {
  const { fake, time, supervisor } = setup({ workers: 1 });
  fake.listen(fake.forked[0]!);
  fake.exit(fake.forked[0]!);
  time.advance(1000);
  fake.exit(fake.forked[1]!, 3);
  assert.equal((await supervisor.done).exitCode, 1);
});

test('a slot crashing maxCrashes times within the window stops the cluster, naming the count and window', async () => {
  const { fake, time, lines, supervisor, settled } = setup({ workers: 2, maxCrashes: 3 });
  fake.listen(fake.forked[0]!);
  fake.listen(fake.forked[1]!);
  // Slot 1 crashes twice (restarted each time), 20 s apart.
  for (let i = 0; i < 2; i++) {
    fake.exit(fake.forked.at(i === 0 ? 0 : -1)!);
    time.advance(1000);
    fake.listen(fake.forked.at(-1)!);
    time.advance(19_000);
  }
  assert.equal(fake.forked.length, 4);
  await tick();
  assert.equal(settled(), undefined);
  // The third death within 60 s of the first: no restart, everything stops.
  const third = fake.forked.at(-1)!;
  fake.exit(third, 1);
  const reason =
    'worker 1004 exited (1): worker slot 1 died 3 times within 60 s (limit 3); stopping instead of restarting it again.';
  assert.equal(lines.at(-1), reason);
  assert.deepEqual(fake.forked[1]!.signals, ['SIGTERM']);
  time.advance(5000);
  assert.equal(fake.forked.length, 4, 'no replacement is forked');
  fake.exit(fake.forked[1]!, null, 'SIGTERM');
  assert.deepEqual(await supervisor.done, { exitCode: 1, reason });
});

test('deaths older than the window do not count', async () => {
  const { fake, time, supervisor, settled } = setup({ workers: 1, maxCrashes: 2, windowMs: 10_000 });
  fake.listen(fake.forked[0]!);
  for (let i = 0; i < 5; i++) {
    fake.exit(fake.forked.at(-1)!);
    time.advance(1000);
    fake.listen(fake.forked.at(-1)!);
    time.advance(10_000);
  }
  assert.equal(fake.forked.length, 6);
  await tick();
  assert.equal(settled(), undefined);
  // Two quick deaths do.
  fake.exit(fake.forked.at(-1)!);
  time.advance(1000);
  fake.listen(fake.forked.at(-1)!);
  fake.exit(fake.forked.at(-1)!);
  assert.equal((await supervisor.done).exitCode, 1);
});

test('crash counts are per slot: one crash in each of several slots is not a loop', async () => {
  const { fake, time, settled } = setup({ workers: 3, maxCrashes: 2 });
  const first = [...fake.forked];
  for (const worker of first) fake.listen(worker);
  for (const worker of first) fake.exit(worker);
  time.advance(1000);
  assert.equal(fake.forked.length, 6);
  await tick();
  assert.equal(settled(), undefined);
});

test('stop() terminates every worker, cancels pending restarts and resolves once all have exited', async () => {
  const { fake, time, supervisor } = setup({ workers: 3 });
  for (const worker of fake.forked) fake.listen(worker);
  fake.exit(fake.forked[0]!); // A restart is pending.
  let stopped = false;
  const stopping = supervisor.stop().then((outcome) => {
    stopped = true;
    return outcome;
  });
  assert.deepEqual(
    fake.forked.map((w) => w.signals),
    [[], ['SIGTERM'], ['SIGTERM']],
  );
  time.advance(1000);
  assert.equal(fake.forked.length, 3, 'the pending restart was cancelled');
  fake.exit(fake.forked[1]!, 0);
  await tick();
  assert.equal(stopped, false, 'waits for every worker');
  // A worker that ignores SIGTERM gets SIGKILL.
  time.advance(9000);
  assert.deepEqual(fake.forked[2]!.signals, ['SIGTERM', 'SIGKILL']);
  fake.exit(fake.forked[2]!, null, 'SIGKILL');
  assert.deepEqual(await stopping, { exitCode: 0, reason: 'stopped on request' });
  assert.equal(supervisor.alive, 0);
  assert.equal(time.pending(), 0);
});

test('stop() after the cluster stopped itself keeps the first reason', async () => {
  const { fake, supervisor } = setup({ workers: 1 });
  fake.exit(fake.forked[0]!, 1);
  const outcome = await supervisor.stop();
  assert.equal(outcome.exitCode, 1);
  assert.match(outcome.reason, /before serving/);
});

test('by default the fifth death of a slot within a minute stops the cluster', async () => {
  const { fake, time, settled, supervisor } = setup({ workers: 1 });
  fake.listen(fake.forked[0]!);
  for (let i = 0; i < 4; i++) {
    fake.exit(fake.forked.at(-1)!);
    time.advance(1000);
    fake.listen(fake.forked.at(-1)!);
    time.advance(10_000);
  }
  await tick();
  assert.equal(settled(), undefined);
  fake.exit(fake.forked.at(-1)!);
  assert.match((await supervisor.done).reason, /died 5 times within 60 s \(limit 5\)/);
});
