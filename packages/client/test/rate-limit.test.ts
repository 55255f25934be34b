import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exhaustedForMs, retryAfterMs } from '../src/rate-limit.js';

/** The header forms other servers than Larder send (Larder's own are exercised in retries.test.ts). */

const NOW = Date.UTC(2025, 5, 1, 12);
const headers = (fields: Record<string, string>) => new Headers(fields);

test('Retry-After in seconds or as an HTTP date; absent or garbage is undefined', () => {
  assert.equal(retryAfterMs(headers({ 'retry-after': '7' }), NOW), 7000);
  assert.equal(retryAfterMs(headers({ 'retry-after': new Date(NOW + 4000).toUTCString() }), NOW), 4000);
  assert.equal(retryAfterMs(headers({ 'retry-after': new Date(NOW - 4000).toUTCString() }), NOW), 0);
  assert.equal(retryAfterMs(headers({}), NOW), undefined);
  assert.equal(retryAfterMs(headers({ 'retry-after': 'soon' }), NOW), undefined);
});

test('a used-up limit from RateLimit, RateLimit-Reset or X-RateLimit-Reset (seconds or Unix time)', () => {
  assert.equal(exhaustedForMs(headers({ ratelimit: '"20/1s";r=0;t=1' }), NOW), 1000);
  assert.equal(
    exhaustedForMs(headers({ ratelimit: '"20/1s";r=3;t=1, "10000/900s";r=0;t=120' }), NOW),
    120_000,
  );
  assert.equal(exhaustedForMs(headers({ ratelimit: '"20/1s";r=5;t=1' }), NOW), 0);
  assert.equal(exhaustedForMs(headers({ 'ratelimit-remaining': '0', 'ratelimit-reset': '9' }), NOW), 9000);
  const unix = String((NOW + 30_000) / 1000);
  assert.equal(
    exhaustedForMs(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': unix }), NOW),
    30_000,
  );
  assert.equal(exhaustedForMs(headers({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': unix }), NOW), 0);
  assert.equal(exhaustedForMs(headers({}), NOW), undefined);
});

test("a time the server names is measured on the server's clock (its Date), not the client's", () => {
  const server = NOW + 2 * 86_400_000;
  const date = new Date(server).toUTCString();
  const reset = String((server + 30_000) / 1000);
  assert.equal(
    exhaustedForMs(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, date }), NOW),
    30_000,
  );
  assert.equal(
    retryAfterMs(headers({ 'retry-after': new Date(server + 4000).toUTCString(), date }), NOW),
    4000,
  );
});
