import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Hono } from 'hono';
import { createErrorEdge } from '../../http/error-edge.js';
import { createTestClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/logger.js';
import { requestId } from '../request-id/request-id.js';
import { rateLimit } from './rate-limit.js';
import {
  createRateLimiter,
  PLATFORM_RATE_LIMITS,
  parseRateLimit,
  type RateLimitHeaderStyle,
  type RatePolicy,
} from './rate-windows.js';

const T0 = Date.UTC(2025, 2, 10, 9); // on a 15-minute boundary

describe('parseRateLimit', () => {
  test('platform, off, and up to four N/WINDOW limits', () => {
    assert.deepEqual(parseRateLimit('platform'), PLATFORM_RATE_LIMITS);
    assert.deepEqual(PLATFORM_RATE_LIMITS, [
      { limit: 20, windowMs: 1000 },
      { limit: 10_000, windowMs: 900_000 },
    ]);
    assert.equal(parseRateLimit('off'), 'off');
    assert.deepEqual(parseRateLimit('5/s,100/15m'), [
      { limit: 5, windowMs: 1000 },
      { limit: 100, windowMs: 900_000 },
    ]);
    for (const bad of ['', 'fast', '5', '5/s,', '0/s', '5/500ms', '1/s,1/s,1/s,1/s,1/s', 'off,5/s'])
      assert.equal(parseRateLimit(bad), undefined, bad);
  });
});

describe('createRateLimiter', () => {
  test('counts exactly per key and window; refused requests are not counted', () => {
    const limiter = createRateLimiter([{ limit: 3, windowMs: 1000 }]);
    const at = (ms: number, key = 'a') => ({ ...limiter.take('s', key, T0 + ms) });
    assert.deepEqual(
      [at(0), at(10), at(20)].map((v) => [v.allowed, v.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
      ],
    );
    assert.deepEqual(at(400), {
      allowed: false,
      policy: 0,
      remaining: 0,
      resetMs: T0 + 1000,
      retryAfterSeconds: 1,
    });
    assert.equal(at(500, 'b').allowed, true);
    assert.deepEqual([at(1000).allowed, at(1000).remaining], [true, 1]);
  });

  test('Retry-After waits for every exhausted window, in whole seconds, never 0', () => {
    const limiter = createRateLimiter([
      { limit: 2, windowMs: 1000 },
      { limit: 3, windowMs: 60_000 },
    ]);
    limiter.take('s', 'k', T0);
    limiter.take('s', 'k', T0 + 1);
    assert.equal(limiter.take('s', 'k', T0 + 999).retryAfterSeconds, 1);
    limiter.take('s', 'k', T0 + 1000);
    const refused = { ...limiter.take('s', 'k', T0 + 1500) };
    assert.equal(refused.allowed, false);
    assert.equal(refused.policy, 1);
    assert.equal(refused.retryAfterSeconds, 59); // 58.5 s rounded up
    assert.equal(limiter.take('s', 'k', T0 + 60_000).allowed, true);
  });

  test('property: in any window no key is allowed more than its limit, and a refusal names a wait ≥ 1 s', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.constantFrom('a', 'b'), gapMs: fc.integer({ min: 0, max: 700 }) }), {
          maxLength: 200,
        }),
        (requests) => {
          const policies: RatePolicy[] = [
            { limit: 3, windowMs: 1000 },
            { limit: 10, windowMs: 5000 },
          ];
          const limiter = createRateLimiter(policies);
          const allowed = new Map<string, number>();
          let now = T0;
          for (const { key, gapMs } of requests) {
            now += gapMs;
            const verdict = limiter.take('s', key, now);
            if (!verdict.allowed) {
              assert.ok(verdict.retryAfterSeconds >= 1);
              continue;
            }
            for (const { limit, windowMs } of policies) {
              const bucket = `${key}|${windowMs}|${Math.floor(now / windowMs)}`;
              const count = (allowed.get(bucket) ?? 0) + 1;
              allowed.set(bucket, count);
              assert.ok(count <= limit);
            }
          }
        },
      ),
    );
  });

  test('counts lists the current windows: client scopes by id, addresses last, at most max; clear forgets all', () => {
    const limiter = createRateLimiter([
      { limit: 5, windowMs: 1000 },
      { limit: 50, windowMs: 60_000 },
    ]);
    const t = 120_000;
    limiter.take('', '10.0.0.1', t);
    limiter.take('client-b', 'loc-2', t);
    limiter.take('client-b', 'loc-1', t);
    limiter.take('client-a', 'loc-9', t);
    limiter.take('client-a', 'loc-9', t + 500);
    assert.deepEqual(limiter.counts(t + 500, 10), {
      keys: [
        { scope: 'client-a', key: 'loc-9', used: [2, 2] },
        { scope: 'client-b', key: 'loc-2', used: [1, 1] },
        { scope: 'client-b', key: 'loc-1', used: [1, 1] },
        { scope: '', key: '10.0.0.1', used: [1, 1] },
      ],
      more: 0,
    });
    // A second on, the 1 s windows are over; a minute on, nothing is counted.
    assert.deepEqual(limiter.counts(t + 1000, 2), {
      keys: [
        { scope: 'client-a', key: 'loc-9', used: [0, 2] },
        { scope: 'client-b', key: 'loc-2', used: [0, 1] },
      ],
      more: 2,
    });
    assert.deepEqual(limiter.counts(t + 60_000, 10), { keys: [], more: 0 });
    limiter.clear();
    assert.deepEqual(limiter.counts(t + 500, 10), { keys: [], more: 0 });
    assert.equal(limiter.take('client-a', 'loc-9', t + 500).remaining, 4);
  });
});

describe('the rateLimit middleware', () => {
  const setup = (headerStyle?: RateLimitHeaderStyle) => {
    const clock = createTestClock(T0);
    const policies = [
      { limit: 2, windowMs: 1000 },
      { limit: 5, windowMs: 900_000 },
    ];
    const app = new Hono();
    app.use(requestId());
    app.onError(createErrorEdge(silentLogger));
    app.use(
      rateLimit({
        limiter: createRateLimiter(policies),
        policies,
        clock,
        scopeOf: () => '',
        keyOf: (c) => c.req.header('x-key') ?? '-',
        tokenPath: '/token',
        ...(headerStyle === undefined ? {} : { headerStyle }),
      }),
    );
    app.all('*', (c) => c.json({ ok: true }));
    return { app, clock };
  };

  test('by default only the platform fields; ietf only the IETF ones', async () => {
    const platform = await setup().app.request('/x');
    assert.equal(platform.headers.get('x-ratelimit-remaining'), '1');
    assert.equal(platform.headers.get('ratelimit'), null);
    assert.equal(platform.headers.get('ratelimit-policy'), null);
    const ietf = await setup('ietf').app.request('/x');
    assert.equal(ietf.headers.get('ratelimit'), '"2/1s";r=1;t=1');
    assert.equal(ietf.headers.get('x-ratelimit-remaining'), null);
  });

  test('with both, every counted answer carries the IETF and the platform fields; past the limit a 429 ErrorMessage', async () => {
    const { app, clock } = setup('both');
    const first = await app.request('/x');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('ratelimit-policy'), '"2/1s";q=2;w=1, "5/900s";q=5;w=900');
    assert.equal(first.headers.get('ratelimit'), '"2/1s";r=1;t=1');
    assert.equal(first.headers.get('x-ratelimit-limit'), '2');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '1');
    assert.equal(first.headers.get('x-ratelimit-reset'), String((T0 + 1000) / 1000));
    await app.request('/x');
    const refused = await app.request('/x');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.equal(refused.headers.get('ratelimit'), '"2/1s";r=0;t=1');
    const body = (await refused.json()) as Record<string, unknown>;
    assert.equal(body['code'], 42902);
    assert.equal(body['canRetry'], 'true');
    assert.equal(body['requestId'], refused.headers.get('x-request-id'));
    assert.equal((await app.request('/x', { headers: { 'x-key': 'other' } })).status, 200);

    // The windows follow the clock: the second's budget returns, then the 15 minutes' runs out.
    clock.advance(1000);
    assert.equal((await app.request('/x')).status, 200);
    assert.equal((await app.request('/x')).status, 200);
    clock.advance(1000);
    const spent = await app.request('/x');
    assert.equal(spent.status, 200);
    assert.equal(spent.headers.get('ratelimit'), '"5/900s";r=0;t=898');
    clock.advance(1000);
    const quarter = await app.request('/x');
    assert.equal(quarter.status, 429);
    assert.equal(quarter.headers.get('retry-after'), '897');
    clock.advance(897_000);
    assert.equal((await app.request('/x')).status, 200);
  });

  test('the token endpoint answers RFC 6749 temporarily_unavailable with the same headers', async () => {
    const { app } = setup('both');
    await app.request('/token', { method: 'POST' });
    await app.request('/token', { method: 'POST' });
    const refused = await app.request('/token', { method: 'POST' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.ok(refused.headers.get('ratelimit') !== null);
    const { requestId, ...body } = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      error: 'temporarily_unavailable',
      error_description: 'Rate limit exceeded; retry later',
    });
    assert.equal(typeof requestId, 'string');
  });
});
