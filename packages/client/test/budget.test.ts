import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { LarderTimeoutError } from '../src/index.js';
import { dropped, hang, order, status, statusOf, token, world } from './scripted-world.js';

/**
 * A call ends within its maxElapsedMs (10 s here), or with `retry: false` within its timeoutMs, whatever took its
 * time first and whatever its fetch does, against a scripted server on a virtual clock (see scripted-world.ts),
 * attempt timeouts included.
 */

/** Rejections nobody handled while the test ran. */
const unhandledRejections = (context: TestContext) => {
  const reasons: unknown[] = [];
  const record = (reason: unknown) => reasons.push(reason);
  process.on('unhandledRejection', record);
  context.after(() => process.off('unhandledRejection', record));
  return reasons;
};

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

test('a retry waiting for its turn gives up at its deadline with its last answer; the request ahead ends at its own', async (context) => {
  // Every answer allows one request at a time. B's request (sent at 1 s) would be answered only at 31 s: its fetch,
  // as an in-process app's may, runs on past its timeout, but B's attempt ends at B's deadline (11 s) all the same.
  // A's retry (due at 2 s) and C's first send (1.5 s) wait behind it: A's deadline comes first, C goes at 11 s.
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
  assert.ok(b!.error instanceof LarderTimeoutError, String(b!.error));
  assert.match((b!.error as Error).message, /no answer within 10000 ms/);
  assert.equal(b!.at, 11_000);
  assert.deepEqual(c!.value, { id: 'po-1' });
  assert.equal(c!.at, 11_000);
  assert.deepEqual(sent, ['0 login', '0 get', '500 get', '1000 get', '11000 get']);
});

test('an attempt ends at its timeout though the fetch ignores its signal; what the fetch does later is let go', async (context) => {
  const unhandled = unhandledRejections(context);
  for (const late of [() => order(), dropped]) {
    const { sent, run, get, sleep } = world(
      context,
      async (kind, n, takes) => {
        if (kind === 'login') return token(n, 3600);
        await takes(30_000);
        return late();
      },
      { virtualTimeouts: true, ignoresAbort: true },
    );
    // The clock runs on past the late answer (or failure) at 30 s.
    const [call] = await run(get(), sleep(40_000));
    assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
    assert.match((call!.error as Error).message, /no answer within 10000 ms/);
    assert.equal(call!.at, 10_000);
    assert.deepEqual(sent, ['0 login', '0 get']);
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(unhandled, []);
});

test('a late answer to an attempt that timed out has its body cancelled, so its connection is let go', async (context) => {
  let cancelled: () => void = () => {};
  const bodyCancelled = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  const { run, get, sleep } = world(
    context,
    async (kind, n, takes) => {
      if (kind === 'login') return token(n, 3600);
      await takes(30_000);
      return new Response(new ReadableStream({ cancel: () => cancelled() }));
    },
    { virtualTimeouts: true, ignoresAbort: true },
  );
  const [call] = await run(get(), sleep(40_000));
  assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
  await bodyCancelled;
});

test("a caller's abort ends the call at once though the fetch ignores its signal, its body read too", async (context) => {
  // Headers at once, then a body that never ends: a fetch whose body does not heed the signal either. It is
  // cancelled, so its connection is let go.
  let cancelled = 0;
  const endless = () =>
    new Response(
      new ReadableStream({
        start: (body) => body.enqueue(new TextEncoder().encode('{"id"')),
        cancel: () => {
          cancelled++;
        },
      }),
    );
  for (const answer of [hang, endless]) {
    const controller = new AbortController();
    const { run, get, sleep } = world(context, (kind, n) => (kind === 'login' ? token(n, 3600) : answer()), {
      virtualTimeouts: true,
      ignoresAbort: true,
    });
    const [call] = await run(
      get(controller.signal),
      sleep(1_000).then(() => controller.abort()),
    );
    assert.equal((call!.error as Error | undefined)?.name, 'AbortError', String(call!.error));
    assert.equal(call!.at, 1_000);
  }
  assert.equal(cancelled, 1);
});

test('reading the body ends at the attempt timeout too, and the stalled body is cancelled so its connection is let go', async (context) => {
  // Headers at once, then a body that stalls and does not heed the fetch's signal (an in-process app's stream).
  let cancelled = 0;
  const { sent, run, get } = world(
    context,
    (kind, n) =>
      kind === 'login'
        ? token(n, 3600)
        : new Response(
            new ReadableStream({
              start: (body) => body.enqueue(new TextEncoder().encode('{')),
              cancel: () => {
                cancelled++;
              },
            }),
          ),
    { virtualTimeouts: true, retry: false, timeoutMs: 10_000 },
  );
  const [call] = await run(get());
  assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
  assert.match((call!.error as Error).message, /no answer within 10000 ms/);
  assert.equal(call!.at, 10_000);
  assert.deepEqual(sent, ['0 login', '0 get']);
  assert.equal(cancelled, 1);
});

/** A call with `retry: false` that failed at `at`, not sent: its timeoutMs left no time. */
const notSentWithinTimeoutMs = (outcome: { error: unknown; at: number }, at: number) => {
  assert.ok(outcome.error instanceof LarderTimeoutError, String(outcome.error));
  assert.match((outcome.error as Error).message, /not sent: no time left within the timeoutMs of the call/);
  assert.equal(outcome.at, at);
};

test('with retry: false a call waits out a hold within its timeoutMs only: then it is not sent', async (context) => {
  // The first call's answer holds the location for 30 s; the second has 10 s (timeoutMs).
  const { sent, run, get, later } = world(
    context,
    (kind, n) =>
      kind === 'login' ? token(n, 3600) : order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' }),
    { retry: false, timeoutMs: 10_000 },
  );
  const [first, second] = await run(get(), later(0));
  assert.equal(first!.error, undefined);
  notSentWithinTimeoutMs(second!, 10_000);
  assert.deepEqual(sent, ['0 login', '0 get']);
});

test('with retry: false a call ends within its timeoutMs: an attempt after a login or a hold gets only what is left', async (context) => {
  // As with maxElapsedMs: not timeoutMs again after the waits, so a call never takes about twice timeoutMs.
  const login = world(
    context,
    async (kind, n, takes) => {
      if (kind === 'get') return hang();
      await takes(4_000);
      return token(n, 3600);
    },
    { retry: false, timeoutMs: 10_000, virtualTimeouts: true },
  );
  const [call] = await login.run(login.get());
  assert.ok(call!.error instanceof LarderTimeoutError, String(call!.error));
  assert.match((call!.error as Error).message, /no answer within 6000 ms/);
  assert.deepEqual(login.timeouts, [10_000, 6_000]);
  assert.deepEqual(login.sent, ['0 login', '4000 get']);
  assert.equal(call!.at, 10_000);

  // The first call's answer holds the location for 9.5 s; the second waits, then hangs.
  const held = world(
    context,
    (kind, n) => {
      if (kind === 'login') return token(n, 3600);
      return n === 1 ? order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9.5' }) : hang();
    },
    { retry: false, timeoutMs: 10_000, virtualTimeouts: true },
  );
  const [first, second] = await held.run(held.get(), held.later(0));
  assert.equal(first!.error, undefined);
  assert.ok(second!.error instanceof LarderTimeoutError, String(second!.error));
  assert.match((second!.error as Error).message, /no answer within 500 ms/);
  assert.deepEqual(held.sent, ['0 login', '0 get', '9500 get']);
  assert.equal(second!.at, 10_000);
});

test('with retry: false a call waits for its turn within its timeoutMs only: then it is not sent', async (context) => {
  // The first answer uses the limit up for 2 s; then one request at a time. B (from 0.1 s), C and D (both from 1 s)
  // wait out the hold; B goes at 2 s and hangs to the end of its timeoutMs (10.1 s); C goes then with what its own
  // timeoutMs leaves (0.9 s) and hangs to its end (11 s); D waits for its turn until its timeoutMs ends, at 11 s.
  const { sent, run, get, later } = world(
    context,
    (kind, n) => {
      if (kind === 'login') return token(n, 3600);
      return n === 1 ? order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' }) : hang();
    },
    { retry: false, timeoutMs: 10_000, virtualTimeouts: true },
  );
  const [, b, c, d] = await run(get(), later(100), later(1_000), later(1_000));
  assert.ok(b!.error instanceof LarderTimeoutError, String(b!.error));
  assert.match((b!.error as Error).message, /no answer within 8100 ms/);
  assert.equal(b!.at, 10_100);
  assert.ok(c!.error instanceof LarderTimeoutError, String(c!.error));
  assert.match((c!.error as Error).message, /no answer within 900 ms/);
  assert.equal(c!.at, 11_000);
  notSentWithinTimeoutMs(d!, 11_000);
  assert.deepEqual(sent, ['0 login', '0 get', '2000 get', '10100 get']);
});

test("with retry: false a login a call needs waits within that call's timeoutMs, not a timeoutMs of its own", async (context) => {
  // The first login's answer holds logins for 30 s, its token lives 5 s; the first get holds the location for 8 s.
  // The second call (from 1 s: its timeoutMs ends at 11 s) waits out the location's hold, then needs a login.
  const { sent, run, get, later } = world(
    context,
    (kind, n) =>
      kind === 'login'
        ? Response.json(
            { token: { accessToken: `token-${n}`, expiresIn: 5 }, status: 'SUCCESS' },
            { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' } },
          )
        : order({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '8' }),
    { retry: false, timeoutMs: 10_000 },
  );
  const [first, second] = await run(get(), later(1_000));
  assert.equal(first!.error, undefined);
  notSentWithinTimeoutMs(second!, 11_000);
  assert.deepEqual(sent, ['0 login', '0 get']);
});
