import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { isAnswering, onAnswering, STEADY_MS } from '../../console/src/answering.js';
import { ApiError, call } from '../../console/src/call.js';

/** The console's calls go to `fetch`: each test says what comes back. */
const realFetch = globalThis.fetch;
/** Date.now is the test's: each test starts an hour after the last, past anything an earlier one left unsteady. */
let hour = 0;
beforeEach(() => {
  hour += 1;
  mock.timers.enable({ apis: ['Date'], now: hour * 3_600_000 });
});
afterEach(() => {
  globalThis.fetch = realFetch;
  mock.timers.reset();
});
const answers = (answer: () => Promise<Response>) => {
  globalThis.fetch = () => answer();
};
const html = (status: number, body: string, statusText = '') =>
  new Response(body, { status, statusText, headers: { 'content-type': 'text/html' } });
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const refusedWith = async (status: number, message: RegExp) => {
  const failure = await call('GET', '/clock').then(
    () => assert.fail('the call succeeded'),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof ApiError);
  assert.equal(failure.status, status);
  assert.match(failure.message, message);
};

test('a call Larder did not answer marks it not answering, and its next answer of any kind (an error too) marks it back; told once per change', async () => {
  const seen: boolean[] = [];
  const stop = onAnswering((answering) => seen.push(answering));
  try {
    assert.equal(isAnswering(), true);
    answers(() => Promise.reject(new TypeError('Failed to fetch')));
    await refusedWith(0, /Larder did not answer/);
    await refusedWith(0, /Larder did not answer/);
    assert.equal(isAnswering(), false);
    answers(async () => json(404, { code: 40401, message: 'No such rule.', requestId: 'r' }));
    await refusedWith(404, /^404: No such rule\.$/);
    assert.equal(isAnswering(), true);
    assert.deepEqual(seen, [false, true]);
  } finally {
    stop();
  }
  mock.timers.tick(STEADY_MS);
  answers(() => Promise.reject(new TypeError('Failed to fetch')));
  await refusedWith(0, /Larder did not answer/);
  assert.deepEqual(seen, [false, true], 'a listener stopped is told nothing more');
  answers(async () => json(200, { now: 'then' }));
  assert.deepEqual(await call('GET', '/clock'), { now: 'then' });
  assert.equal(isAnswering(), true);
});

test('Larder answering one call in two (a partial outage) is not answering throughout, told so twice rather than at each call, until it has answered every call for STEADY_MS', async () => {
  const seen: boolean[] = [];
  const stop = onAnswering((answering) => seen.push(answering));
  try {
    let calls = 0;
    answers(() =>
      calls++ % 2 === 0 ? Promise.reject(new TypeError('Failed to fetch')) : Promise.resolve(json(200, {})),
    );
    for (let i = 0; i <= 20; i++) {
      await call('GET', '/clock').catch(() => {});
      mock.timers.tick(500);
    }
    assert.deepEqual(
      seen,
      [false, true, false],
      'the first answer is believed; the miss after it is not forgotten',
    );
    answers(async () => json(200, {}));
    await call('GET', '/clock');
    mock.timers.tick(STEADY_MS - 1000);
    await call('GET', '/clock');
    assert.equal(isAnswering(), false, 'not yet STEADY_MS since the last miss');
    mock.timers.tick(1000);
    await call('GET', '/clock');
    assert.equal(isAnswering(), true);
    assert.deepEqual(seen, [false, true, false, true]);
    // Steady again, a later outage is said at once and its end believed at once, as the first was.
    mock.timers.tick(STEADY_MS);
    answers(() => Promise.reject(new TypeError('Failed to fetch')));
    await refusedWith(0, /Larder did not answer/);
    answers(async () => json(200, {}));
    await call('GET', '/clock');
    assert.deepEqual(seen, [false, true, false, true, false, true]);
  } finally {
    stop();
  }
});

test('an answer from something in front of Larder (a proxy’s HTML or empty 502, over HTTP/1.1 or HTTP/2, a login page) is no answer from Larder', async () => {
  for (const [answer, message] of [
    [
      () => html(502, '<h1>502 Bad Gateway</h1>', 'Bad Gateway'),
      /^502: Bad Gateway, not Larder's answer \(text\/html, not JSON\)/,
    ],
    // Over HTTP/2 there is no status text.
    [() => html(502, '<h1>502 Bad Gateway</h1>'), /^502, not Larder's answer \(text\/html, not JSON\)/],
    [() => new Response('', { status: 502 }), /^502, not Larder's answer \(an empty body\)/],
    [() => html(200, '<form>Sign in</form>'), /^not Larder's answer \(text\/html, not JSON\)/],
  ] as const) {
    // Apart by STEADY_MS: each case's miss comes soon after the last case's recovery, which is Larder unsteady.
    mock.timers.tick(STEADY_MS);
    answers(async () => json(200, {}));
    await call('GET', '/clock');
    assert.equal(isAnswering(), true);
    answers(async () => answer());
    await refusedWith(answer().status, message);
    assert.equal(isAnswering(), false, String(message));
  }
  // Larder's own empty answer (a 204) is an answer.
  mock.timers.tick(STEADY_MS);
  answers(async () => new Response(null, { status: 204 }));
  assert.equal(await call('DELETE', '/faults'), undefined);
  assert.equal(isAnswering(), true);
});

test('a body cut off mid-answer is no answer', async () => {
  answers(async () => {
    const body = new ReadableStream({
      start: (controller) => controller.error(new TypeError('terminated')),
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  });
  await refusedWith(0, /Larder did not answer/);
  assert.equal(isAnswering(), false);
});
