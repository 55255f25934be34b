import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createSecretHasher, generateClientSecret } from '../../src/auth/client-secret.js';
import { createFailureThrottle, parseThrottleLimit, throttleKeys } from '../../src/auth/failure-throttle.js';
import { createLruCache } from '../../src/auth/lru-cache.js';
import { createTestClock } from '../../src/shared/clock.js';
import { createJsonLogger } from '../../src/shared/logger.js';

describe('secret hasher', () => {
  it('verifies the right secret only, and depends on its key', () => {
    const secret = generateClientSecret();
    const hasher = createSecretHasher(Buffer.alloc(32, 1));
    const hash = hasher.hash(secret);
    assert.ok(hasher.verify(secret, hash));
    assert.ok(!hasher.verify(`${secret}x`, hash));
    assert.ok(!hasher.verify(secret, 'abcd'), 'a malformed stored hash never matches');
    assert.notEqual(createSecretHasher(Buffer.alloc(32, 2)).hash(secret), hash);
  });
});

describe('failure throttle', () => {
  it('allows `limit` failures per key per sliding window', () => {
    const clock = createTestClock(0);
    const throttle = createFailureThrottle({ clock, limit: 3, windowMs: 10_000 });
    for (let i = 0; i < 3; i++) {
      assert.equal(throttle.retryAfterSeconds(['a']), undefined);
      throttle.recordFailure(['a']);
      clock.advance(1000);
    }
    assert.equal(throttle.retryAfterSeconds(['a']), 7);
    assert.equal(throttle.retryAfterSeconds(['b']), undefined);
    assert.equal(throttle.retryAfterSeconds(['b', 'a']), 7);
    clock.advance(7000);
    assert.equal(throttle.retryAfterSeconds(['a']), undefined, 'the oldest failure left the window');
  });

  it('forgets the least recently failing keys beyond maxKeys', () => {
    const throttle = createFailureThrottle({ clock: createTestClock(0), limit: 1, maxKeys: 2 });
    throttle.recordFailure(['a']);
    throttle.recordFailure(['b']);
    throttle.recordFailure(['c']);
    assert.equal(throttle.retryAfterSeconds(['a']), undefined);
    assert.equal(throttle.retryAfterSeconds(['c']), 60);
  });

  it('keys failures on client id and address together', () => {
    assert.deepEqual(throttleKeys('c1', '10.0.0.1'), ['10.0.0.1\nc1']);
    assert.notDeepEqual(throttleKeys('c1', '10.0.0.1'), throttleKeys('c1', '10.0.0.2'));
    assert.notDeepEqual(throttleKeys('c1', '10.0.0.1'), throttleKeys('c2', '10.0.0.1'));
  });

  it('parses --login-throttle limits', () => {
    assert.deepEqual(parseThrottleLimit('10/min'), { limit: 10, windowMs: 60_000 });
    assert.deepEqual(parseThrottleLimit('5/30s'), { limit: 5, windowMs: 30_000 });
    assert.deepEqual(parseThrottleLimit('100/h'), { limit: 100, windowMs: 3_600_000 });
    assert.equal(parseThrottleLimit('off'), 'off');
    for (const bad of ['', '10', '0/min', '10/0s', 'ten/min', '10/day'])
      assert.equal(parseThrottleLimit(bad), undefined, bad);
  });
});

describe('LRU cache', () => {
  it('evicts the least recently used entry', () => {
    const cache = createLruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1);
    cache.set('c', 3);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.size, 2);
  });

  it('keeps a key used on every other request, however many other keys come and go', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.array(fc.integer({ min: 1, max: 1000 }), { maxLength: 300 }),
        (max, others) => {
          const cache = createLruCache<number, number>(max);
          cache.set(0, 0);
          for (const key of others) {
            // The hot key: a miss here would cost the guard a signature check per request.
            assert.equal(cache.get(0), 0);
            if (cache.get(key) === undefined) cache.set(key, key);
            assert.ok(cache.size <= max);
          }
        },
      ),
    );
  });
});

describe('JSON logger', () => {
  it('writes one JSON object per line with time, level, message and fields', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => lines.push(line) }, createTestClock(0));
    logger.warn('hello', { requestId: 'r1', error: new Error('boom') });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.endsWith('\n'));
    const entry = JSON.parse(lines[0] ?? '');
    assert.deepEqual(
      [entry.time, entry.level, entry.msg, entry.requestId],
      ['1970-01-01T00:00:00.000Z', 'warn', 'hello', 'r1'],
    );
    assert.equal(entry.error.message, 'boom');
  });
});
