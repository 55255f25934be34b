import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LarderTimeoutError } from '../src/index.js';
import { hang, order, status, statusOf, token, world } from './scripted-world.js';

/**
 * A call ends within its maxElapsedMs (10 s here) whatever took its time first, against a scripted server on a
 * virtual clock (see scripted-world.ts), attempt timeouts included.
 */

test('a first send after a login that took most of the budget times out when the budget ends, not timeoutMs later', async (context) => {
  // Fractions of a millisecond left are a whole one: AbortSignal.timeout takes no fraction.
  for (const [loginTakes, left] of [
    [9_000, 1_000],
    [9_999.5, 1],
  ] as const) {
    const { sent, timeouts, run, get } = world(
      context,
      async (kind, n, takes) => {
        if (kind === 'get') return hang();
        await takes(loginTakes);
        return token(n, 3600);
      },
      { virtualTimeouts: true },
    );
    const [call] = await run(get());
    assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
    assert.match((call!.error as Error).message, new RegExp(`no answer within ${left} ms`));
    assert.deepEqual(timeouts, [10_000, left]);
    assert.deepEqual(sent, ['0 login', `${loginTakes} get`]);
    assert.equal(call!.at, loginTakes + left);
  }
});

test('a first send after a rate-limit hold that took most of the budget gets only the time left', async (context) => {
  // The first call's answer says the location's limit is used up for 9.5 s; the second waits, then hangs.
  const { sent, timeouts, run, get, later } = world(
    context,
    (kind, n) => {
      if (kind === 'login') return token(n, 3600);
      return n === 1 ? order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9.5' }) : hang();
    },
    { virtualTimeouts: true },
  );
  const [first, second] = await run(get(), later(0));
  assert.equal(first!.error, undefined);
  assert.ok(second!.error instanceof LarderTimeoutError, String(second!.error));
  assert.deepEqual(sent, ['0 login', '0 get', '9500 get']);
  assert.deepEqual(timeouts, [10_000, 10_000, 500]);
  assert.equal(second!.at, 10_000);
});

test('a first send left no time (a login or a hold took it all) is not sent: LarderTimeoutError', async (context) => {
  const loginTakesAll = world(context, async (kind, n, takes) => {
    if (kind === 'get') return order();
    await takes(10_000);
    return token(n, 3600);
  });
  const [call] = await loginTakesAll.run(loginTakesAll.get());
  assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
  assert.match((call!.error as Error).message, /not sent: no time left within the maxElapsedMs/);
  assert.deepEqual(loginTakesAll.sent, ['0 login']);

  // The first call's answer holds the location for 30 s; the second waits out its 10 s with a good token.
  const held = world(context, (kind, n) =>
    kind === 'login' ? token(n, 3600) : order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' }),
  );
  const [, second] = await held.run(held.get(), held.later(0));
  assert.ok(second!.error instanceof LarderTimeoutError, String(second!.error));
  assert.deepEqual(held.sent, ['0 login', '0 get']);
  assert.equal(second!.at, 10_000);
});

test('a call waiting for its turn gives up at its deadline: a retry with its last answer, a first send with LarderTimeoutError', async (context) => {
  // Every answer allows one request at a time. B's request (sent at 1 s) is answered only at 31 s: its fetch, as an
  // in-process app's may, runs on past its timeout. A's retry (due at 2 s) and C's first send (1.5 s) wait behind it.
  const one = { 'x-ratelimit-remaining': '1' };
  const { sent, run, get, later } = world(
    context,
    async (kind, n, takes) => {
      if (kind === 'login') return token(n, 3600);
      if (n === 2) return status(503, one);
      if (n === 3) await takes(30_000);
      return order(one);
    },
    { virtualTimeouts: true, ignoresAbort: true },
  );
  const [, a, b, c] = await run(get(), later(500), later(1_000), later(1_500));
  assert.equal(statusOf(a!), 503, String(a!.error));
  assert.equal(a!.at, 10_500);
  assert.ok(c!.error instanceof LarderTimeoutError, String(c!.error));
  assert.match((c!.error as Error).message, /not sent: no time left/);
  assert.equal(c!.at, 11_500);
  assert.deepEqual(b!.value, { id: 'po-1' });
  assert.deepEqual(sent, ['0 login', '0 get', '500 get', '1000 get']);
});
