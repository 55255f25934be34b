import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { createFailureThrottle, throttleKeys } from '../../src/auth/failure-throttle.js';
import { type PeerWorker, relayThrottleFailures, sharedThrottle } from '../../src/auth/shared-throttle.js';
import { createTestClock } from '../../src/shared/clock.js';

/** Three workers and a primary wired as node:cluster wires them (IPC as synchronous events). */
const cluster = (count: number) => {
  const clock = createTestClock();
  const primary = new EventEmitter();
  const workers = Array.from({ length: count }, (_, id) => {
    const channel = new EventEmitter() as EventEmitter & { send: (message: unknown) => boolean };
    const peer: PeerWorker = {
      id,
      send: (message) => channel.emit('message', message),
      isDead: () => false,
    };
    channel.send = (message) => primary.emit('message', peer, message);
    const throttle = sharedThrottle(createFailureThrottle({ clock, limit: 3, windowMs: 60_000 }), channel);
    return { peer, throttle };
  });
  relayThrottleFailures(
    () => workers.map((worker) => worker.peer),
    (listener) => primary.on('message', listener),
  );
  return workers.map((worker) => worker.throttle);
};

test('failures on any worker count against the limit on every worker', () => {
  const throttles = cluster(3);
  const keys = throttleKeys('client', '10.0.0.1');
  // One failure on each worker: three for the instance.
  for (const throttle of throttles) {
    assert.equal(throttle.retryAfterSeconds(keys), undefined);
    throttle.recordFailure(keys);
  }
  for (const throttle of throttles) assert.ok(throttle.retryAfterSeconds(keys) !== undefined);
  // Another client and address are untouched.
  for (const throttle of throttles)
    assert.equal(throttle.retryAfterSeconds(throttleKeys('client', '10.0.0.2')), undefined);
});

test('a failure on one worker is held by the other, which sent nothing back', () => {
  const throttles = cluster(2);
  const keys = throttleKeys('client', '10.0.0.1');
  throttles[0]?.recordFailure(keys);
  assert.equal(throttles[1]?.size(), 1);
});

test('a clear on one worker (a sandbox reset) forgets the failures on every worker', () => {
  const throttles = cluster(3);
  const keys = throttleKeys('client', '10.0.0.1');
  for (const throttle of throttles) throttle.recordFailure(keys);
  for (const throttle of throttles) assert.ok(throttle.retryAfterSeconds(keys) !== undefined);
  throttles[1]?.clear();
  for (const throttle of throttles) {
    assert.equal(throttle.retryAfterSeconds(keys), undefined);
    assert.equal(throttle.size(), 0);
  }
});
