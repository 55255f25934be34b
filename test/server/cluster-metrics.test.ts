import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import {
  answerMetricsRequests,
  clusterExposition,
  type WorkerLike,
} from '../../src/server/cluster-metrics.js';

/** A primary and its workers over fake IPC (delivered later, as IPC would), each worker with a counter at `count`. */
const cluster = (counts: readonly number[]) => {
  let toPrimary: (worker: WorkerLike, message: unknown) => void = () => {};
  let exited: (worker: WorkerLike) => void = () => {};
  const asked: number[] = [];
  const workers = counts.map((count, index) => {
    const registry = new Registry();
    new Counter({ name: 'larder_test_total', help: 'test', registers: [registry] }).inc(count);
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
