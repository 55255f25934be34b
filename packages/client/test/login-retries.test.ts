import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LarderTimeoutError } from '../src/index.js';
import { dropped, invalidToken, order, status, statusOf, token, world } from './scripted-world.js';

/**
 * The logins a call needs (its first token, a token renewed before a retry, a new one after an invalid_token 401),
 * against a scripted server on a virtual clock (see scripted-world.ts): each call has 10 s (maxElapsedMs).
 */

test('a re-send after a 401 logs in within what is left of the call: a failing login stops at its deadline', async (context) => {
  // 9.5 s to the 401; the new login's 503 would need a 1.5 s backoff, past the call's 10 s.
  const { sent, run, get } = world(context, async (kind, n, takes) => {
    if (kind === 'login') return n === 1 ? token(n, 3600) : status(503);
    await takes(9_500);
    return invalidToken();
  });
  const [call] = await run(get());
  assert.equal(statusOf(call!), 503, 'the login failure is the answer');
  assert.deepEqual(sent, ['0 login', '0 get', '9500 login']);
  assert.ok(call!.at <= 10_000, `ended at ${call!.at} ms`);
});

test("a retry whose token expired during the backoff logs in within the call's budget: a Retry-After past it ends the login at once", async (context) => {
  // The token expires at 9 s; the call retries at 9.5 s, and its login is asked to wait 1 s (+100 ms).
  const { sent, run, get } = world(context, async (kind, n, takes) => {
    if (kind === 'login')
      return n === 1 ? token(n, 9) : n === 2 ? status(429, { 'retry-after': '1' }) : token(n, 9);
    if (n > 1) return order();
    await takes(8_000);
    return status(503);
  });
  const [call] = await run(get());
  assert.equal(statusOf(call!), 429, "the login's refusal is the answer");
  assert.deepEqual(sent, ['0 login', '0 get', '9500 login']);
  assert.equal(call!.at, 9_500);
});

test('a call that waited out a rate limit for its first send logs in within what it has left', async (context) => {
  // The first call's answer says the location's limit is used up for 8 s; the second call waits, then its token
  // (expired at 5 s) needs a login, which keeps failing.
  const { sent, run, get, later } = world(context, (kind, n) => {
    if (kind === 'login') return n === 1 ? token(n, 5) : status(503);
    return order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '8' });
  });
  const [first, second] = await run(get(), later(0));
  assert.equal(first!.error, undefined);
  assert.equal(statusOf(second!), 503);
  // 503 at 8 s, 1.5 s backoff, 503 at 9.5 s: a 3 s backoff would end past 10 s.
  assert.deepEqual(sent, ['0 login', '0 get', '8000 login', '9500 login']);
  assert.equal(second!.at, 9_500);
});

test("a login shared by calls ends by the earliest waiting call's deadline; a later call that joined it gets its outcome", async (context) => {
  // Call A (0 s, deadline 10 s) retries at 9.5 s and needs a new token (expired at 9 s). Call B (9.2 s, deadline
  // 19.2 s) began that login, which answers 503 at 9.7 s: a backoff of 1.5 s would end past A's deadline.
  const { sent, run, get, later } = world(context, async (kind, n, takes) => {
    if (kind === 'login') {
      if (n === 1) return token(n, 9);
      await takes(500);
      return status(503);
    }
    if (n > 1) return order();
    await takes(8_000);
    return status(503);
  });
  const [a, b] = await run(get(), later(9_200));
  assert.deepEqual(sent, ['0 login', '0 get', '9200 login']);
  assert.equal(statusOf(a!), 503);
  assert.equal(statusOf(b!), 503, "B had time left, but joined a login bounded by A's deadline");
  assert.equal(a!.at, 9_700);
  assert.equal(b!.at, 9_700);
});

test('a re-send after a 401 whose login took what was left does not go: the 401 is the answer', async (context) => {
  // 8 s to the 401, then a login that takes the remaining 2 s.
  const { sent, run, get } = world(context, async (kind, n, takes) => {
    if (kind === 'login') {
      if (n > 1) await takes(2_000);
      return token(n, 3600);
    }
    if (n > 1) return order();
    await takes(8_000);
    return invalidToken();
  });
  const [call] = await run(get());
  assert.equal(statusOf(call!), 401);
  assert.deepEqual(sent, ['0 login', '0 get', '8000 login']);
  assert.equal(call!.at, 10_000);
});

test('a retry left no time by a rate limit spends no login: its last answer is the answer', async (context) => {
  // A's send (0–8 s) answers 503; meanwhile B's is refused for 30 s. A's retry (9.5 s) would need a new token
  // (expired at 9 s), but the location is held past A's 10 s.
  const { sent, count, run, get, later } = world(context, async (kind, n, takes) => {
    if (kind === 'login') return token(n, 9);
    if (n === 2) return status(429, { 'retry-after': '30' });
    if (n > 2) return order();
    await takes(8_000);
    return status(503);
  });
  const [a, b] = await run(get(), later(7_000));
  assert.equal(statusOf(b!), 429, '30 s is past B’s budget: it gives up at once');
  assert.equal(statusOf(a!), 503);
  assert.equal(count.login, 1, `no second login: ${sent.join(', ')}`);
  assert.deepEqual(sent, ['0 login', '0 get', '7000 get']);
  assert.ok(a!.at <= 10_000, `ended at ${a!.at} ms`);
});

test('a re-send after a 401 left no time by a rate limit spends no login: the 401 is the answer', async (context) => {
  const { sent, run, get, later } = world(context, async (kind, n, takes) => {
    if (kind === 'login') return token(n, 3600);
    if (n === 2) return status(429, { 'retry-after': '30' });
    if (n > 2) return order();
    await takes(8_000);
    return invalidToken();
  });
  const [a] = await run(get(), later(7_000));
  assert.equal(statusOf(a!), 401);
  assert.deepEqual(sent, ['0 login', '0 get', '7000 get']);
  assert.ok(a!.at <= 10_000, `ended at ${a!.at} ms`);
});

test('a login held back by its own rate limit past the call’s budget is not sent: the call fails at once', async (context) => {
  // The first call's login is refused for 30 s: it gives up at once (past its 10 s). So does the next call's login.
  const { sent, run, get } = world(context, (kind) =>
    kind === 'login' ? status(429, { 'retry-after': '30' }) : order(),
  );
  const [first] = await run(get());
  assert.equal(statusOf(first!), 429);
  const [second] = await run(get());
  assert.ok(second!.error instanceof LarderTimeoutError, String(second!.error));
  assert.match((second!.error as Error).message, /maxElapsedMs/);
  assert.deepEqual(sent, ['0 login']);
  assert.equal(second!.at, 0);
});

test('a login retries 503s, dropped connections and 429s (after Retry-After plus 100 ms) within the call’s budget', async (context) => {
  const { sent, run, get } = world(context, (kind, n) => {
    if (kind === 'get') return order();
    if (n === 1) return status(503);
    if (n === 2) return dropped();
    if (n === 3) return status(429, { 'retry-after': '2' });
    return token(n, 3600);
  });
  const [call] = await run(get());
  assert.deepEqual(call!.value, { id: 'po-1' });
  // Backoffs of 1.5 s and 3 s, then Retry-After's 2 s and 100 ms.
  assert.deepEqual(sent, ['0 login', '1500 login', '4500 login', '6600 login', '6600 get']);
});

test('a refused login (400, 401 invalid_client, 403) fails at once: never retried, no wait', async (context) => {
  for (const [code, refusal] of [
    [400, () => status(400)],
    [401, () => Response.json({ error: 'invalid_client' }, { status: 401 })],
    [401, () => status(401)],
    [403, () => status(403)],
  ] as const) {
    const { sent, run, get, now } = world(context, (kind) => (kind === 'login' ? refusal() : order()));
    const [call] = await run(get());
    assert.equal(statusOf(call!), code, String(call!.error));
    assert.deepEqual(sent, ['0 login']);
    assert.equal(now(), 0);
  }
});

test('a call that waited its whole budget for a rate limit sends no login: it fails with LarderTimeoutError', async (context) => {
  // The first call's answer holds the location for 30 s; the second waits its 10 s, and its token is stale by then.
  const { sent, run, get, later } = world(context, (kind, n) => {
    if (kind === 'login') return token(n, 5);
    return order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
  });
  const [, second] = await run(get(), later(0));
  assert.ok(second!.error instanceof LarderTimeoutError, String(second!.error));
  assert.deepEqual(sent, ['0 login', '0 get']);
  assert.equal(second!.at, 10_000);
});
