import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFailureThrottle, throttleKeys } from '../../src/auth/failure-throttle.js';
import { createTestClock } from '../../src/shared/clock.js';

/** The throttle's memory: bounded under a flood of distinct keys, swept once failures leave the window. */

test('a flood of distinct failing client ids holds at most maxKeys keys', () => {
  const clock = createTestClock();
  const throttle = createFailureThrottle({ clock, limit: 3, windowMs: 60_000, maxKeys: 1000 });
  for (let i = 0; i < 20_000; i++) throttle.recordFailure(throttleKeys(`client-${i}`, '10.0.0.1'));
  assert.equal(throttle.size(), 1000);
});

test('keys whose failures all left the window are swept, without waiting for the cap', () => {
  const clock = createTestClock();
  const throttle = createFailureThrottle({ clock, limit: 3, windowMs: 60_000 });
  for (let i = 0; i < 500; i++) throttle.recordFailure(throttleKeys(`client-${i}`, '10.0.0.1'));
  assert.equal(throttle.size(), 500);
  clock.advance(30_000);
  throttle.recordFailure(throttleKeys('late', '10.0.0.2'));
  assert.equal(throttle.size(), 501);
  clock.advance(30_001);
  throttle.recordFailure(throttleKeys('later', '10.0.0.3'));
  assert.equal(throttle.size(), 2, 'the 500 old keys are gone');
});

test('a client id of any length costs a key of bounded size, still counted against its address', () => {
  const clock = createTestClock();
  const throttle = createFailureThrottle({ clock, limit: 2, windowMs: 60_000 });
  const [key] = throttleKeys('x'.repeat(1_000_000), '10.0.0.9');
  assert.ok(key !== undefined && key.length < 300);
  throttle.recordFailure(throttleKeys('y'.repeat(5000), '10.0.0.9'));
  throttle.recordFailure(throttleKeys('z'.repeat(6000), '10.0.0.9'));
  assert.ok(throttle.retryAfterSeconds(throttleKeys('w'.repeat(7000), '10.0.0.9')) !== undefined);
  assert.equal(throttle.retryAfterSeconds(throttleKeys('real-client', '10.0.0.9')), undefined);
});

test('failures recorded before the clock was set back no longer count, so no wait outlasts the window', () => {
  const clock = createTestClock();
  const throttle = createFailureThrottle({ clock, limit: 3, windowMs: 60_000 });
  const keys = throttleKeys('client-a', '10.0.0.1');
  const start = clock.now();
  clock.set(start + 30 * 86_400_000);
  for (let i = 0; i < 3; i++) throttle.recordFailure(keys);
  assert.equal(throttle.retryAfterSeconds(keys), 60);
  clock.set(start);
  assert.equal(throttle.retryAfterSeconds(keys), undefined);
  throttle.recordFailure(keys);
  throttle.recordFailure(keys);
  assert.equal(throttle.retryAfterSeconds(keys), undefined, 'two failures since, under the limit of three');
  throttle.recordFailure(keys);
  assert.equal(throttle.retryAfterSeconds(keys), 60);
});
