import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { primaryCaller, servePrimary } from '../../src/shared/primary-rpc.js';

/**
 * Two workers and a primary wired by in-memory channels that, like IPC, serialize every message (JSON) and
 * deliver it on a later turn.
 */
const wire = (count: number) => {
  const primary = new EventEmitter();
  const workers = Array.from({ length: count }, () => {
    const inbox = new EventEmitter();
    const end = {
      send: (message: unknown) => {
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        setImmediate(() => inbox.emit('message', copy));
        return true;
      },
    };
    const channel = {
      send: (message: unknown) => {
        const copy = JSON.parse(JSON.stringify(message)) as unknown;
        setImmediate(() => primary.emit('message', end, copy));
        return true;
      },
      on: (event: 'message', listener: (message: unknown) => void) => inbox.on(event, listener),
    };
    return channel;
  });
  const onMessage = (listener: (worker: { send(message: unknown): unknown }, message: unknown) => void) => {
    primary.on('message', listener);
  };
  return { workers, onMessage };
};

test('every worker counts against the one total the primary holds, each answer to its own caller', async () => {
  const { workers, onMessage } = wire(2);
  let total = 0;
  servePrimary(onMessage, 'count', { add: (n) => (total += n as number) });
  const [a, b] = workers.map((channel) => primaryCaller(channel, 'count', (e) => new Error(e.message)));
  const answers = await Promise.all([a!('add', 1), b!('add', 10), a!('add', 100)]);
  assert.deepEqual(answers, [1, 11, 111]);
  assert.equal(total, 111);
});

test('a failing call rejects on the worker; other services on the same channel ignore it', async () => {
  const { workers, onMessage } = wire(1);
  servePrimary(onMessage, 'one', {
    fail: () => {
      throw new Error('no such thing');
    },
  });
  servePrimary(onMessage, 'two', { ping: () => 'pong' });
  const one = primaryCaller(workers[0]!, 'one', (e) => new Error(`revived: ${e.message}`));
  const two = primaryCaller(workers[0]!, 'two', (e) => new Error(e.message));
  await assert.rejects(one('fail'), /revived: Error: no such thing/);
  await assert.rejects(one('missing'), /unknown one call missing/);
  assert.equal(await two('ping'), 'pong');
});

test('a handler that answers later: the call waits for its promise, and its rejection comes back revived', async () => {
  const { workers, onMessage } = wire(1);
  let release: (value: string) => void = () => {};
  servePrimary(onMessage, 'later', {
    wait: () =>
      new Promise<string>((resolve) => {
        release = resolve;
      }),
    refuse: () => Promise.reject(new Error('not now')),
  });
  const call = primaryCaller(workers[0]!, 'later', (e) => new Error(`revived: ${e.message}`));
  let settled = false;
  const waited = call('wait').then((value) => {
    settled = true;
    return value;
  });
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(settled, false);
  release('done');
  assert.equal(await waited, 'done');
  await assert.rejects(call('refuse'), /revived: Error: not now/);
});
