import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropped, hang, invalidToken, order, status, statusOf, token, world } from './scripted-world.js';

/**
 * Early renewal (a token's final minute) failing while the cached token is still good, against a scripted server
 * on a virtual clock (see scripted-world.ts). Token 1 lives an hour from 0: it is renewed from 3,540 s and expires
 * at 3,600 s. Each call has 10 s (maxElapsedMs); the backoffs between renewals are 1.5 s, 3 s …
 */

const HOUR = 3_600_000;
const RENEWING = HOUR - 50_000;
const refused = () => Response.json({ error: 'invalid_client' }, { status: 401 });

test('an early renewal that fails leaves the call on its still-valid token: one attempt, no wait', async (context) => {
  for (const [failure, login, at] of [
    ['a 503', () => status(503), RENEWING],
    ['a dropped connection', dropped, RENEWING],
    ['a 429 with Retry-After', () => status(429, { 'retry-after': '1' }), RENEWING],
    ['a 401 invalid_client', refused, RENEWING],
    // The renewal may take half of what is left of the call's 10 s.
    ['a timeout', hang, RENEWING + 5_000],
  ] as const) {
    const { sent, carried, timeouts, run, get, later } = world(
      context,
      (kind, n) => (kind === 'get' ? order() : n === 1 ? token(n, 3600) : login()),
      { virtualTimeouts: true },
    );
    const [first, second] = await run(get(), later(RENEWING));
    assert.equal(first!.error, undefined);
    assert.deepEqual(second!.value, { id: 'po-1' }, `${failure}: ${String(second!.error)}`);
    assert.deepEqual(sent, ['0 login', '0 get', `${RENEWING} login`, `${at} get`], failure);
    assert.deepEqual(carried, ['token-1', 'token-1'], failure);
    assert.equal(timeouts[2], 5_000, `${failure}: the renewal's timeout is half the call's budget`);
  }
});

test('calls at once in the final minute share one renewal, and all go on with the valid token when it fails', async (context) => {
  const { sent, carried, run, get, later } = world(context, (kind, n) =>
    kind === 'get' ? order() : n === 1 ? token(n, 3600) : status(503),
  );
  const outcomes = await run(get(), later(RENEWING), later(RENEWING), later(RENEWING));
  assert.deepEqual(
    outcomes.map((outcome) => outcome.error),
    [undefined, undefined, undefined, undefined],
  );
  assert.deepEqual(sent, ['0 login', '0 get', `${RENEWING} login`, ...Array(3).fill(`${RENEWING} get`)]);
  assert.deepEqual(carried, Array(4).fill('token-1'));
});

test('later calls try a failed renewal again after a backoff that grows, not at every call; a success then serves', async (context) => {
  const { sent, carried, run, get, later } = world(context, (kind, n) =>
    kind === 'get' ? order() : n === 1 || n === 4 ? token(n, 3600) : status(503),
  );
  // Fails at +0 (next from +1.5 s), at +2 s (next from +5 s), then succeeds at +5 s.
  const at = [0, 1_000, 2_000, 4_000, 5_000, 6_000].map((ms) => RENEWING + ms);
  const outcomes = await run(get(), ...at.map((ms) => later(ms)));
  assert.ok(outcomes.every((outcome) => outcome.error === undefined));
  assert.deepEqual(
    sent.filter((line) => line.endsWith('login')),
    ['0 login', `${at[0]} login`, `${at[2]} login`, `${at[4]} login`],
  );
  assert.deepEqual(carried, ['token-1', 'token-1', 'token-1', 'token-1', 'token-1', 'token-4', 'token-4']);
});

test('a renewal refused (invalid_client) serves the call with the valid token; once it has expired the refusal is the error', async (context) => {
  const { sent, carried, run, get, later } = world(context, (kind, n) =>
    kind === 'get' ? order() : n === 1 ? token(n, 3600) : refused(),
  );
  const [, early, again, expired] = await run(get(), later(RENEWING), later(RENEWING + 2_000), later(HOUR));
  assert.equal(early!.error, undefined);
  assert.equal(
    again!.error,
    undefined,
    'tried again after the backoff, refused again: the token still serves',
  );
  assert.equal(statusOf(expired!), 401, 'no token left: the refusal fails the call, at once');
  assert.equal(expired!.at, HOUR);
  assert.deepEqual(sent, [
    '0 login',
    '0 get',
    `${RENEWING} login`,
    `${RENEWING} get`,
    `${RENEWING + 2_000} login`,
    `${RENEWING + 2_000} get`,
    `${HOUR} login`,
  ]);
  assert.deepEqual(carried, ['token-1', 'token-1', 'token-1']);
});

test('a renewal that fails once the token has expired leaves the call a login of its own, retried as any', async (context) => {
  // Token 1 lives 20 s (renewed from 18 s). The renewal at 19 s answers a 503 at 20.5 s, past its expiry.
  const { sent, carried, run, get, later } = world(context, async (kind, n, takes) => {
    if (kind === 'get') return order();
    if (n === 1) return token(n, 20);
    if (n === 2) await takes(1_500);
    return n === 4 ? token(n, 3600) : status(503);
  });
  const [, call] = await run(get(), later(19_000));
  assert.deepEqual(call!.value, { id: 'po-1' }, String(call!.error));
  assert.deepEqual(sent, ['0 login', '0 get', '19000 login', '20500 login', '22000 login', '22000 get']);
  assert.deepEqual(carried, ['token-1', 'token-4']);
});

test('a token refused (invalid_token) while renewals fail brings one new login at once, backoff or not', async (context) => {
  const { sent, carried, run, get, later } = world(context, (kind, n) => {
    if (kind === 'get') return n === 2 ? invalidToken() : order();
    return n === 2 ? status(503) : token(n, 3600);
  });
  const [, call] = await run(get(), later(RENEWING));
  assert.deepEqual(call!.value, { id: 'po-1' }, String(call!.error));
  assert.deepEqual(sent, [
    '0 login',
    '0 get',
    `${RENEWING} login`,
    `${RENEWING} get`,
    `${RENEWING} login`,
    `${RENEWING} get`,
  ]);
  assert.deepEqual(carried, ['token-1', 'token-1', 'token-3']);
});

test("a renewal the login's rate limit holds back is not sent, and no call waits for it", async (context) => {
  // The first renewal is refused for 30 s; the next, due after 1.5 s, finds the login held, then another after 3 s.
  const { sent, carried, run, get, later } = world(context, (kind, n) => {
    if (kind === 'get') return order();
    return n === 2 ? status(429, { 'retry-after': '30' }) : token(n, 3600);
  });
  const at = [0, 2_000, 31_000].map((ms) => RENEWING + ms);
  const outcomes = await run(get(), ...at.map((ms) => later(ms)));
  assert.ok(outcomes.every((outcome) => outcome.error === undefined));
  assert.deepEqual(sent, [
    '0 login',
    '0 get',
    `${at[0]} login`,
    `${at[0]} get`,
    `${at[1]} get`,
    `${at[2]} login`,
    `${at[2]} get`,
  ]);
  assert.deepEqual(carried, ['token-1', 'token-1', 'token-1', 'token-3']);
});
