import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  answerMetricsRequests,
  clusterExposition,
  type WorkerLike,
} from '../../src/server/cluster-metrics.js';
import { createMetrics } from '../../src/shared/metrics.js';

/** A worker's registry: a counter at `count`, a histogram of `count` observations and a gauge at `count`. */
const counting = (count: number): Registry => {
  const registry = new Registry();
  new Counter({ name: 'larder_test_total', help: 'test', registers: [registry] }).inc(count);
  const histogram = new Histogram({
    name: 'larder_test_seconds',
    help: 'test',
    buckets: [1],
    registers: [registry],
  });
  for (let i = 0; i < count; i++) histogram.observe(0.5);
  new Gauge({ name: 'larder_test_open', help: 'test', registers: [registry] }).set(count);
  return registry;
};

/** A primary and its workers over fake IPC (delivered later, as IPC would), each with `registryOf(count)`. */
const cluster = (counts: readonly number[], registryOf: (count: number) => Registry = counting) => {
  let toPrimary: (worker: WorkerLike, message: unknown) => void = () => {};
  let exited: (worker: WorkerLike) => void = () => {};
  const asked: number[] = [];
  const workers = counts.map((count, index) => {
    const registry = registryOf(count);
    let own: (message: unknown) => void = () => {};
    const worker: WorkerLike = {
      id: index + 1,
      send: (message) => {
        asked.push(index + 1);
        setImmediate(() => own(message));
      },
    };
    answerMetricsRequests(registry, {
      send: (message) => {
        setImmediate(() => toPrimary(worker, message));
        return true;
      },
      on: (_event, listener) => {
        own = listener;
      },
    });
    return worker;
  });
  return {
    workers,
    asked,
    exit: (worker: WorkerLike) => exited(worker),
    events: {
      onMessage: (listener: typeof toPrimary) => {
        toPrimary = listener;
      },
      onExit: (listener: typeof exited) => {
        exited = listener;
      },
    },
  };
};

test('a scrape sums the serving workers and never asks one still starting, which has counted nothing', async () => {
  const { workers, asked, events } = cluster([3, 4, 0]);
  // The third was forked but has not said it serves: it could not answer yet.
  const exposition = clusterExposition(() => workers.slice(0, 2), events);
  assert.match(await exposition.render(), /^larder_test_total 7$/m);
  assert.deepEqual(asked.sort(), [1, 2]);
});

test('a worker that exits after it was asked is left out of that scrape, which answers at once', async () => {
  const { workers, events, exit } = cluster([3, 4]);
  const [first, second] = workers;
  // The second is asked but dies before it can answer (its message never comes).
  const silent: WorkerLike = { id: second!.id, send: () => {} };
  const scrape = clusterExposition(() => [first!, silent], events).render();
  exit(silent);
  assert.match(await scrape, /^larder_test_total 3$/m);
});

test('with no worker serving, a scrape answers with nothing rather than waiting', async () => {
  const { events } = cluster([]);
  assert.equal((await clusterExposition(() => [], events).render()).trim(), '');
});

test('a worker whose channel is closed already (killed, its exit not yet seen) is left out, and nothing throws', async () => {
  const { workers, events } = cluster([3]);
  const killed: WorkerLike = {
    id: 9,
    // As cluster's Worker.send on a closed channel: the error goes to the callback, or is thrown unhandled.
    send: (_message, callback) => {
      const error = Object.assign(new Error('Channel closed'), { code: 'ERR_IPC_CHANNEL_CLOSED' });
      process.nextTick(() => callback(error));
    },
  };
  assert.match(
    await clusterExposition(() => [workers[0]!, killed], events).render(),
    /^larder_test_total 3$/m,
  );
});

test('a worker that dies keeps what it had counted in the sums, so no counter goes back when it is replaced', async () => {
  const { workers, events, exit } = cluster([3, 4, 1, 2]);
  const [first, second, replacement, later] = workers;
  let serving = [first!, second!];
  const exposition = clusterExposition(() => serving, events);
  assert.match(await exposition.render(), /^larder_test_total 7$/m);
  // The second dies (killed) and a replacement starts from nothing: the sum goes on from 7, not from 3.
  exit(second!);
  serving = [first!, replacement!];
  const after = await exposition.render();
  assert.match(after, /^larder_test_total 8$/m);
  assert.match(after, /^larder_test_seconds_bucket\{le="1"\} 8$/m);
  assert.match(after, /^larder_test_seconds_count 8$/m);
  // A gauge is a reading of a live process: the dead one's is gone.
  assert.match(after, /^larder_test_open 4$/m);
  // A worker that dies before any scrape asked it leaves nothing to keep, and later sums still hold.
  exit(later!);
  assert.match(await exposition.render(), /^larder_test_total 8$/m);
});

test('a worker that answers a scrape and then dies is counted once in it, and the next scrape is not lower', async () => {
  const { workers, events, exit } = cluster([3, 4]);
  const [first, second] = workers;
  // The first answers only when let go: the second answers, then dies, while the scrape still waits.
  let release: () => void = () => {};
  const held: typeof first = {
    id: first!.id,
    send: (message, callback) => {
      release = () => first!.send(message, callback);
    },
  };
  let serving = [held, second!];
  const exposition = clusterExposition(() => serving, events);
  const scrape = exposition.render();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  exit(second!);
  release();
  assert.match(await scrape, /^larder_test_total 7$/m);
  serving = [first!];
  assert.match(await exposition.render(), /^larder_test_total 7$/m);
});

test('many workers dying over time keep their sums, each counted once', async () => {
  const counts = Array.from({ length: 41 }, (_, i) => (i === 0 ? 5 : 1));
  const { workers, events, exit } = cluster(counts);
  let serving = workers.slice(0, 2);
  const exposition = clusterExposition(() => serving, events);
  for (let i = 1; i < 40; i++) {
    await exposition.render();
    exit(workers[i]!);
    serving = [workers[0]!, workers[i + 1]!];
  }
  assert.match(await exposition.render(), /^larder_test_total 45$/m);
});

test('connections refused by --max-connections and connections open are summed over the workers', async () => {
  const { workers, events } = cluster([3, 4], (count) => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.connectionsRefused.inc(count);
    metrics.watchConnections(() => count * 10);
    return metrics.registry;
  });
  const scraped = await clusterExposition(() => workers, events).render();
  assert.match(scraped, /^larder_http_connections_refused_total 7$/m);
  assert.match(scraped, /^larder_http_connections_open 70$/m);
});
